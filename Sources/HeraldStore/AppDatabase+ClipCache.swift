import Foundation
import GRDB
import HeraldCore

/// The record's coding keys, snake-cased, are the columns of `cached_clip`.
extension CachedClipRecord: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "cached_clip"
    public static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    public static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
}

/// The clip cache's index (`ClipIndex`), in the `cached_clip` table and two counters.
extension AppDatabase: ClipIndex {
    /// The entry for `key` whose material matches; nil for a miss. Only reads: the lookup is
    /// counted apart (`countCacheLookup`), so a cached clip starts without waiting for a synced write.
    public func cachedClip(key: String, material: String) async throws -> CachedClipRecord? {
        try await writer.read { db in
            guard let record = try CachedClipRecord.fetchOne(db, key: key), record.material == material else { return nil }
            return record
        }
    }

    /// Counts a lookup as a hit (the entry's hits and last use) or a miss, without waiting: the
    /// write is queued at once, so every later read or write of this database (the totals, a
    /// store's eviction by last use) comes after it. A failure to count is not the
    /// announcement's: the log row's own write reports a failing disk.
    public func countCacheLookup(key: String, hit: Bool, now: Date) {
        writer.asyncWrite({ db in
            guard hit else { return try Self.increment("cache_misses", db) }
            try db.execute(sql: "UPDATE cached_clip SET hits = hits + 1, last_used_at = ? WHERE key = ?", arguments: [now, key])
            try Self.increment("cache_hits", db)
        }, completion: { _, _ in })
    }

    /// Adds (or replaces) an entry, then removes the least recently used entries until the total is
    /// at most `maxBytes`. Returns the evicted entries, whose files the caller deletes.
    public func storeCachedClip(_ record: CachedClipRecord, maxBytes: Int64) async throws -> [CachedClipRecord] {
        try await writer.write { db in
            try record.save(db)
            var total = try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(bytes), 0) FROM cached_clip") ?? 0
            var evicted: [CachedClipRecord] = []
            if total > maxBytes {
                let oldest = try CachedClipRecord.order(Column("last_used_at").asc).fetchAll(db)
                for candidate in oldest where total > maxBytes && candidate.key != record.key {
                    try candidate.delete(db)
                    total -= candidate.bytes
                    evicted.append(candidate)
                }
            }
            return evicted
        }
    }

    /// The `limit` entries said most often (the most recently used first among equals).
    public func mostUsedCachedClips(limit: Int) async throws -> [CachedClipRecord] {
        try await writer.read { db in
            try CachedClipRecord.order(Column("hits").desc, Column("last_used_at").desc).limit(limit).fetchAll(db)
        }
    }

    /// Forgets an entry (its file went missing or was unreadable).
    public func removeCachedClip(key: String) async throws {
        _ = try await writer.write { db in try CachedClipRecord.deleteOne(db, key: key) }
    }

    public func clipCacheTotals() async throws -> ClipCacheTotals {
        try await writer.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM cached_clip")
            let hits = try Int.fetchOne(db, sql: "SELECT value FROM counter WHERE name = 'cache_hits'") ?? 0
            let misses = try Int.fetchOne(db, sql: "SELECT value FROM counter WHERE name = 'cache_misses'") ?? 0
            return ClipCacheTotals(entries: row?[0] ?? 0, bytes: row?[1] ?? 0, hits: hits, misses: misses)
        }
    }

    /// Removes every entry and resets the counters; returns the entries whose files to delete.
    public func clearClipCache() async throws -> [CachedClipRecord] {
        try await writer.write { db in
            let all = try CachedClipRecord.fetchAll(db)
            try CachedClipRecord.deleteAll(db)
            try db.execute(sql: "DELETE FROM counter WHERE name IN ('cache_hits', 'cache_misses')")
            return all
        }
    }

    private static func increment(_ name: String, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO counter (name, value) VALUES (?, 1)
            ON CONFLICT(name) DO UPDATE SET value = value + 1
            """, arguments: [name])
    }
}

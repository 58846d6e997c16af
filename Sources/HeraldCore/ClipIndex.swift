import Foundation

/// One rendered clip in the on-disk cache, as its index knows it.
public struct CachedClipRecord: Codable, Sendable, Equatable {
    public var key: String
    /// Everything that changes the sound (`ClipCache.material`): a key collision is a miss.
    public var material: String
    /// File name inside the cache folder.
    public var file: String
    public var bytes: Int64
    public var durationMilliseconds: Int
    public var hits: Int
    public var createdAt: Date
    public var lastUsedAt: Date

    public init(key: String, material: String, file: String, bytes: Int64, durationMilliseconds: Int,
                hits: Int, createdAt: Date, lastUsedAt: Date) {
        self.key = key
        self.material = material
        self.file = file
        self.bytes = bytes
        self.durationMilliseconds = durationMilliseconds
        self.hits = hits
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// Totals for `herald cache stats`.
public struct ClipCacheTotals: Sendable, Equatable, Codable {
    public var entries: Int
    public var bytes: Int64
    public var hits: Int
    public var misses: Int

    public init(entries: Int, bytes: Int64, hits: Int, misses: Int) {
        self.entries = entries
        self.bytes = bytes
        self.hits = hits
        self.misses = misses
    }

    /// Hits over lookups, 0 when nothing was looked up.
    public var hitRate: Double { hits + misses == 0 ? 0 : Double(hits) / Double(hits + misses) }
}

/// The index of the clip cache (`ClipCache` in Speech): which file holds which material, with
/// hit counts and last uses for eviction. SQLite in production (`AppDatabase` in HeraldStore), so
/// the speech adapter needs no store of its own.
public protocol ClipIndex: Sendable {
    /// The entry for `key` whose material matches; nil for a miss. Only reads.
    func cachedClip(key: String, material: String) async throws -> CachedClipRecord?
    /// Counts a lookup as a hit (the entry's hits and last use) or a miss, without waiting; every
    /// later read or write of the index comes after it.
    func countCacheLookup(key: String, hit: Bool, now: Date)
    /// Adds (or replaces) an entry, then removes the least recently used entries until the total
    /// is at most `maxBytes`. Returns the evicted entries, whose files the caller deletes.
    func storeCachedClip(_ record: CachedClipRecord, maxBytes: Int64) async throws -> [CachedClipRecord]
    /// The `limit` entries said most often (the most recently used first among equals).
    func mostUsedCachedClips(limit: Int) async throws -> [CachedClipRecord]
    /// Forgets an entry (its file went missing or was unreadable).
    func removeCachedClip(key: String) async throws
    /// Entries, bytes, hits and misses.
    func clipCacheTotals() async throws -> ClipCacheTotals
    /// Removes every entry and resets the counters; returns the entries whose files to delete.
    func clearClipCache() async throws -> [CachedClipRecord]
}

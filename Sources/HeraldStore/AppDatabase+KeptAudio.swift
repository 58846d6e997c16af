import Foundation
import GRDB
import HeraldCore

/// The record's coding keys are the columns of `kept_audio`.
extension KeptAudioRecord: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "kept_audio"
}

/// The index of kept audio (`KeptAudioRecord`): which rows' audio is on disk, how big, and why
/// the rest went. The files are the caller's (`KeptAudio` in HeraldApp); this only says which.
extension AppDatabase {
    /// Registered after every other migration (main's `v13: buttons` included: named v14 so a
    /// merge keeps that order).
    static func registerKeptAudio(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v14: audio kept for listening back") { db in
            try db.create(table: "kept_audio") { t in
                // No foreign key: the row may still wait in the log's overflow buffer.
                t.primaryKey("announcement_id", .text)
                t.column("bytes", .integer).notNull()
                t.column("duration_milliseconds", .integer).notNull()
                t.column("chime_end_milliseconds", .integer).notNull()
                t.column("partial", .boolean).notNull()
                t.column("kept_at", .datetime).notNull().indexed()
                t.column("gone_at", .datetime)
                t.column("gone_because", .text)
            }
        }
    }

    /// Notes `record` as kept (replacing an earlier turn's audio of the same row).
    public func keepAudio(_ record: KeptAudioRecord) async throws {
        try await writer.write { db in try record.save(db) }
    }

    /// What is known of the audio of each of `ids` (kept or gone); ids with none are left out.
    public func keptAudio(ids: [String]) async throws -> [String: KeptAudioRecord] {
        guard !ids.isEmpty else { return [:] }
        return try await writer.read { db in
            let records = try KeptAudioRecord.filter(keys: ids).fetchAll(db)
            return Dictionary(records.map { ($0.announcementID, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Marks as gone the audio kept before `keptBefore`, then, oldest first, what takes the total
    /// past `maxBytes`; returns the ids whose files the caller removes. Notes of audio gone
    /// before `forgetBefore` are deleted (their rows are out of the log by then).
    public func pruneKeptAudio(keptBefore: Date, maxBytes: Int64, now: Date, forgetBefore: Date?,
                               retention: String, cap: String) async throws -> [String] {
        try await writer.write { db in
            var gone: [String] = []
            let old = try KeptAudioRecord.filter(Column("gone_at") == nil && Column("kept_at") < keptBefore).fetchAll(db)
            for var record in old {
                record.goneAt = now
                record.goneBecause = retention
                try record.update(db)
                gone.append(record.announcementID)
            }
            var total = try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(bytes), 0) FROM kept_audio WHERE gone_at IS NULL") ?? 0
            if total > maxBytes {
                let oldest = try KeptAudioRecord.filter(Column("gone_at") == nil).order(Column("kept_at").asc).fetchAll(db)
                // The newest stays even when it alone is over the cap: it was just said.
                for var record in oldest.dropLast() where total > maxBytes {
                    record.goneAt = now
                    record.goneBecause = cap
                    try record.update(db)
                    total -= record.bytes
                    gone.append(record.announcementID)
                }
            }
            if let forgetBefore {
                try db.execute(sql: "DELETE FROM kept_audio WHERE gone_at IS NOT NULL AND kept_at < ?", arguments: [forgetBefore])
            }
            return gone
        }
    }

    /// Marks one row's audio gone (its file went missing, or it outlived the retention before a
    /// prune ran).
    public func markKeptAudioGone(id: String, at now: Date, because reason: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "UPDATE kept_audio SET gone_at = ?, gone_because = ? WHERE announcement_id = ? AND gone_at IS NULL",
                           arguments: [now, reason, id])
        }
    }
}

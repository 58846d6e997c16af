import Foundation
import GRDB
import HeraldCore

/// The restore journal's single row, where Herald kept the journal before it had a file of its
/// own (`JournalFile`). Only taken over at open now (`RestoreJournalStore`): a row left by a crash
/// before an upgrade is still restored at the next start.
struct JournalRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "restore_journal"
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    var id = 1
    var entry: JournalEntry
    var writtenAt: Date
}

extension AppDatabase {
    /// A journal row an earlier version left, if any. Synchronous: read once, when a journal
    /// store opens.
    func legacyJournalRowNow() throws -> JournalEntry? {
        try writer.read { db in try JournalRow.fetchOne(db, key: 1)?.entry }
    }

    /// Deletes that row. By its key: with no row, nothing is written and nothing synced.
    func deleteLegacyJournalRowNow() throws {
        _ = try writer.write { db in try JournalRow.deleteOne(db, key: 1) }
    }
}

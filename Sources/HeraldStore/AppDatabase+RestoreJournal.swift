import Foundation
import GRDB
import HeraldCore

/// The restore journal's single row.
struct JournalRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "restore_journal"
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    var id = 1
    var entry: JournalEntry
    var writtenAt: Date
}

extension AppDatabase: RestoreJournal {
    public func save(_ entry: JournalEntry) async throws {
        try await writer.write { db in try JournalRow(entry: entry, writtenAt: Date()).save(db) }
    }

    public func pending() async throws -> JournalEntry? {
        try await writer.read { db in try JournalRow.fetchOne(db, key: 1)?.entry }
    }

    public func clear() async throws {
        _ = try await writer.write { db in try JournalRow.deleteAll(db) }
    }
}

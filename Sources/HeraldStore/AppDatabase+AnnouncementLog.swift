import GRDB
import HeraldCore

extension AnnouncementRecord: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "announcement"
    public static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    public static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
}

extension AppDatabase: AnnouncementLog {
    public func record(_ record: AnnouncementRecord) async throws {
        try await writer.write { db in try record.save(db) }
    }

    public func recent(limit: Int) async throws -> [AnnouncementRecord] {
        try await writer.read { db in
            try AnnouncementRecord.order(Column("queued_at").desc).limit(limit).fetchAll(db)
        }
    }

    /// Number of logged announcements with `outcome` (all of them when nil).
    public func count(outcome: Outcome? = nil) async throws -> Int {
        try await writer.read { db in
            var request = AnnouncementRecord.all()
            if let outcome { request = request.filter(Column("outcome") == outcome.rawValue) }
            return try request.fetchCount(db)
        }
    }
}

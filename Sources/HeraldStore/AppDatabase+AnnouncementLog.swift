import Foundation
import GRDB
import HeraldCore

/// The record's CodingKeys are the column names; what the API's JSON does not show has three more:
/// a payment's `amount_minor_units` and `amount_currency`, and the `signature_mac` it was signed with.
extension AnnouncementRecord: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "announcement"

    /// The coded columns, as the record's `Codable` names them.
    private struct Coded: Codable, FetchableRecord, EncodableRecord {
        var record: AnnouncementRecord
        init(_ record: AnnouncementRecord) { self.record = record }
        init(from decoder: any Decoder) throws { record = try AnnouncementRecord(from: decoder) }
        func encode(to encoder: any Encoder) throws { try record.encode(to: encoder) }
    }

    public init(row: Row) throws {
        self = try Coded(row: row).record
        if let minorUnits: Int64 = row["amount_minor_units"], let code: String = row["amount_currency"],
           let currency = Currency.named(code) {
            amount = Amount(minorUnits: minorUnits, currency: currency)
        }
        signatureMAC = row["signature_mac"]
    }

    /// A record without an amount (or a signature) leaves the row's as it is.
    public func encode(to container: inout PersistenceContainer) throws {
        try Coded(self).encode(to: &container)
        if let amount {
            container["amount_minor_units"] = amount.minorUnits
            container["amount_currency"] = amount.currency.code
        }
        if let signatureMAC { container["signature_mac"] = signatureMAC }
    }
}

extension AppDatabase {
    /// Inserts or replaces the row with `record.id`.
    public func record(_ record: AnnouncementRecord) async throws {
        try await writer.write { db in try record.save(db) }
    }

    /// The newest rows first.
    public func recent(limit: Int) async throws -> [AnnouncementRecord] {
        try await writer.read { db in
            try AnnouncementRecord.order(Column("queued_at").desc).limit(limit).fetchAll(db)
        }
    }

    /// The announcement with `id`.
    public func announcement(id: String) async throws -> AnnouncementRecord? {
        try await writer.read { db in try AnnouncementRecord.fetchOne(db, key: id) }
    }

    /// The announcement that carried the signature whose HMAC is `mac`, if one did.
    public func announcement(signatureMAC mac: String) async throws -> AnnouncementRecord? {
        try await writer.read { db in try AnnouncementRecord.filter(Column("signature_mac") == mac).fetchOne(db) }
    }

    /// The announcement a client of a source already sent with `requestID`, within the retention window.
    public func announcement(source: AnnouncementSource, client: String, requestID: String) async throws -> AnnouncementRecord? {
        try await writer.read { db in
            try AnnouncementRecord.filter(Column("source") == source.rawValue && Column("client") == client
                                          && Column("request_id") == requestID)
                .fetchOne(db)
        }
    }

    /// Inserts a new row; false when its (source, client, request_id) is already there.
    public func insertIfNew(_ record: AnnouncementRecord) async throws -> Bool {
        try await writer.write { db in
            do {
                try record.insert(db)
                return true
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                return false
            }
        }
    }

    /// Rows accepted but never finished (the daemon stopped first), oldest first.
    public func unfinished() async throws -> [AnnouncementRecord] {
        try await writer.read { db in
            try AnnouncementRecord.filter(Column("outcome") == nil).order(Column("queued_at")).fetchAll(db)
        }
    }

    /// Rows newest first, optionally since a date and with one outcome.
    public func announcements(since: Date?, outcome: Outcome?, limit: Int) async throws -> [AnnouncementRecord] {
        try await writer.read { db in
            var request = AnnouncementRecord.order(Column("queued_at").desc)
            if let since { request = request.filter(Column("queued_at") >= since) }
            if let outcome { request = request.filter(Column("outcome") == outcome.rawValue) }
            return try request.limit(limit).fetchAll(db)
        }
    }

    /// Forgets request ids older than `days`, so they may be used again.
    public func expireRequestIDs(olderThan days: Int, now: Date) async throws {
        try await writer.write { db in
            try db.execute(sql: "UPDATE announcement SET request_id = NULL WHERE request_id IS NOT NULL AND queued_at < ?",
                           arguments: [now.addingTimeInterval(-Double(days) * 86_400)])
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

// MARK: Synchronous, for the in-memory log
//
// The store's in-memory buffer is written without an await (microseconds, on the store's own
// thread): a write that suspended could land in a buffer `flush` has already handed off and copied.
extension AppDatabase {
    /// Inserts or replaces the row with `record.id`, blocking.
    func recordNow(_ record: AnnouncementRecord) throws {
        try writer.write { db in try record.save(db) }
    }

    /// Inserts a new row, blocking; false when its (source, client, request_id) is already there.
    func insertNowIfNew(_ record: AnnouncementRecord) throws -> Bool {
        try writer.write { db in
            do {
                try record.insert(db)
                return true
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                return false
            }
        }
    }

    /// Whether a client of a source already sent `requestID`, blocking.
    func claimsNow(source: AnnouncementSource, client: String, requestID: String) throws -> Bool {
        try writer.read { db in
            try AnnouncementRecord.filter(Column("source") == source.rawValue && Column("client") == client
                                          && Column("request_id") == requestID)
                .fetchCount(db) > 0
        }
    }

    /// True when the log holds no row and no used signature, blocking.
    func isEmptyNow() throws -> Bool {
        try writer.read { db in
            try AnnouncementRecord.fetchCount(db) == 0 && Int.fetchOne(db, sql: "SELECT count(*) FROM used_signature") == 0
        }
    }
}

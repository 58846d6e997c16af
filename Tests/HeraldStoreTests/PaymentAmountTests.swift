import Foundation
import GRDB
import HeraldCore
@testable import HeraldStore
import Testing

/// A payment's amount is kept in integer minor units and its currency, beside the `body` text the
/// API shows; rows logged before that are converted by the migration.
@Suite struct PaymentAmountTests {
    @Test func aPaymentRowKeepsItsAmountInMinorUnits() async throws {
        let database = try AppDatabase(DatabaseQueue())
        var row = AnnouncementRecord(source: .api, priority: .high, bodyKind: .payment, body: "25.30 USD",
                                     queuedAt: Date(timeIntervalSince1970: 1000))
        row.amount = Amount(minorUnits: 2530, currency: .usd)
        try await database.record(row)
        let stored = try #require(try await database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT body_kind, body, amount_minor_units, amount_currency FROM announcement")
        })
        let (kind, body, minorUnits, currency): (String, String, Int64, String) =
            (stored["body_kind"], stored["body"], stored["amount_minor_units"], stored["amount_currency"])
        #expect(kind == "payment" && body == "25.30 USD")
        #expect(minorUnits == 2530 && currency == "USD")
        #expect(try await database.announcement(id: row.id) == row)
    }

    @Test func anUpdateWithoutAnAmountKeepsTheRowsAmount() async throws {
        let database = try AppDatabase(DatabaseQueue())
        var row = AnnouncementRecord(source: .api, priority: .normal, bodyKind: .payment, body: "1000 JPY", queuedAt: Date())
        row.amount = Amount(minorUnits: 1000, currency: .jpy)
        try await database.record(row)
        row.amount = nil
        row.outcome = .played
        try await database.record(row)
        let stored = try #require(try await database.announcement(id: row.id))
        #expect(stored.outcome == .played && stored.amount == Amount(minorUnits: 1000, currency: .jpy))
    }

    @Test func theMigrationConvertsOldPaymentRows() async throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue, upTo: "v7: the secret that signed an announcement")
        try await queue.write { db in
            let insert = """
                INSERT INTO announcement (id, client, source, priority, body_kind, body, queued_at)
                VALUES (?, '', 'api', 'normal', ?, ?, '2026-11-01 08:00:00.000')
                """
            try db.execute(sql: insert, arguments: ["usd", "payment", "25.30 USD"])
            try db.execute(sql: insert, arguments: ["yen", "payment", "1200 JPY"])
            try db.execute(sql: insert, arguments: ["bare", "payment", "7.50"])
            try db.execute(sql: insert, arguments: ["words", "text", "25.30 USD"])
        }
        let database = try AppDatabase(queue)
        #expect(try await database.announcement(id: "usd")?.amount == Amount(minorUnits: 2530, currency: .usd))
        #expect(try await database.announcement(id: "yen")?.amount == Amount(minorUnits: 1200, currency: .jpy))
        // Without a currency the digits say nothing exact: the row keeps its text only.
        #expect(try await database.announcement(id: "bare")?.amount == nil)
        #expect(try await database.announcement(id: "words")?.amount == nil)
        #expect(try await database.announcement(id: "usd")?.body == "25.30 USD", "the text the API shows is unchanged")
    }
}

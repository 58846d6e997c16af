import Foundation
import HeraldCore
import HeraldStore
import Testing

/// The day's payments (`GET /v1/payments/total`, a button's `total`) from a real SQLite log:
/// payments said or coalesced count; refused, failed, stale, duplicate rows and replays do not.
@Suite struct PaymentTotalsTests {
    let folder = NSTemporaryDirectory() + "herald-totals-\(UUID().uuidString)"

    func payment(_ minor: Int64, _ currency: Currency, _ outcome: Outcome?, at seconds: Double, replayOf: String? = nil) -> AnnouncementRecord {
        let amount = Amount(minorUnits: minor, currency: currency)
        var record = AnnouncementRecord(source: .api, priority: .normal, bodyKind: .payment, body: amount.description,
                                        queuedAt: Date(timeIntervalSince1970: seconds))
        record.amount = amount
        record.outcome = outcome
        record.replayOf = replayOf
        return record
    }

    @Test func onlyPaymentsSaidOnceInsideTheWindowCount() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try AppDatabase(path: folder + "/herald.sqlite")
        let inr = try #require(Currency.named("INR"))
        let said = payment(1250, inr, .played, at: 1001)
        for record in [said, payment(10_000, inr, .coalesced, at: 1002), payment(525, .usd, .partial, at: 1003),
                       payment(700, inr, .interrupted, at: 1004),
                       payment(999, inr, .failed, at: 1005), payment(999, inr, .droppedStale, at: 1006),
                       payment(999, inr, .duplicate, at: 1007), payment(999, inr, nil, at: 1008),
                       payment(1250, inr, .played, at: 1009, replayOf: said.id),
                       payment(999, inr, .played, at: 999), payment(999, inr, .played, at: 2000)] {
            try await database.record(record)
        }
        var text = AnnouncementRecord(source: .api, priority: .normal, bodyKind: .text, body: "two payments received", queuedAt: Date(timeIntervalSince1970: 1010))
        text.outcome = .played
        try await database.record(text)
        let totals = try await database.paymentTotals(since: Date(timeIntervalSince1970: 1000), until: Date(timeIntervalSince1970: 2000))
        #expect(totals.count == 4)
        #expect(totals.totals == [PaymentTotals.Total(currency: inr, count: 3, minorUnits: 11_950),
                                  PaymentTotals.Total(currency: .usd, count: 1, minorUnits: 525)])
        #expect(totals.totals.first?.amount == "119.50")
    }

    @Test func todayStartsAtMidnightInTheHubsZone() throws {
        let zone = try #require(TimeZone(identifier: "Asia/Kolkata"))
        // 2026-11-28T20:00:00Z is 01:30 on the 29th in India.
        let start = PaymentTotals.startOfDay(Date(timeIntervalSince1970: 1_795_896_000), in: zone)
        #expect(ISO8601DateFormatter().string(from: start) == "2026-11-28T18:30:00Z")
    }
}

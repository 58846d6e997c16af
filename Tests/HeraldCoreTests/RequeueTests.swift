import Foundation
import HeraldCore
import Testing

/// Rows accepted before a stop are queued again at the next start, rebuilt from the log.
struct RequeueTests {
    /// The daemon's clock at the restart.
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func reminderRow(queuedSecondsAgo: TimeInterval) -> AnnouncementRecord {
        var row = AnnouncementRecord(source: .reminder, priority: .normal, bodyKind: .text, body: "Time for your tablets",
                                     queuedAt: now.addingTimeInterval(-queuedSecondsAgo))
        row.reminderID = "r-1"
        return row
    }

    @Test func aReminderFiringQueuedBeforeARestartIsSaidLate() throws {
        let request = try #require(AnnouncementRequest(record: reminderRow(queuedSecondsAgo: 120), currency: .usd, now: now))
        #expect(request.reminder?.id == "r-1")
        #expect(request.reminder?.late == true, "queued two minutes ago: said after its time")
    }

    @Test func oneQueuedAMomentAgoIsNotLate() throws {
        let request = try #require(AnnouncementRequest(record: reminderRow(queuedSecondsAgo: 1), currency: .usd, now: now))
        #expect(request.reminder?.late == false)
    }

    @Test func aPaymentRowComesBackAsTheSameAmount() throws {
        let row = AnnouncementRecord(source: .api, priority: .high, bodyKind: .payment, body: "25.30 USD", queuedAt: Date())
        let request = try #require(AnnouncementRequest(record: row, currency: .usd, now: now))
        guard case .payment(let amount) = request.body else { Issue.record("not a payment: \(request.body)"); return }
        #expect(amount == Amount(minorUnits: 2530, currency: .usd))
        #expect(request.priority == .high && request.reminder == nil)
    }

    @Test func aPaymentRowWithItsAmountComesBackFromTheAmountNotTheText() throws {
        var row = AnnouncementRecord(source: .api, priority: .normal, bodyKind: .payment, body: "1200 JPY", queuedAt: Date())
        row.amount = Amount(minorUnits: 1200, currency: .jpy)
        let request = try #require(AnnouncementRequest(record: row, currency: .usd, now: now))
        guard case .payment(let amount) = request.body else { Issue.record("not a payment: \(request.body)"); return }
        #expect(amount == Amount(minorUnits: 1200, currency: .jpy))
    }

    @Test func theAPIShowsARowWithoutItsStoredAmount() throws {
        var row = AnnouncementRecord(source: .api, priority: .normal, bodyKind: .audioURL, body: "https://a.example/x.wav", queuedAt: Date())
        row.amount = Amount(minorUnits: 2530, currency: .usd)
        let keys = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(row)) as? [String: Any]).keys
        #expect(!keys.contains { $0.contains("amount") })
        #expect(try JSONDecoder().decode([String: String].self, from: JSONEncoder().encode(["k": BodyKind.audioURL]))["k"] == "audio_url")
    }
}

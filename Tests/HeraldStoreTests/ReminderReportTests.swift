import Foundation
import HeraldCore
import HeraldStore
import Testing

/// The caregiver's week from a real SQLite file: a week of a twice-daily medication reminder and a
/// calendar's firings, logged as the reminder service logs them (first sayings, repeats, `late`
/// and `missed` rows, acknowledgements), on a simulated clock.
struct ReminderReportTests {
    @Test func aWeekOfFiringsIsCountedPerReminderAndPerCalendar() async throws {
        let folder = NSTemporaryDirectory() + "herald-report-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try AppDatabase(path: folder + "/herald.sqlite")
        let monday = try Date("2026-11-23T08:00:00Z", strategy: .iso8601)
        func say(_ reminder: String, _ due: Date, outcome: Outcome, time: Int = 1) async throws {
            var record = AnnouncementRecord(requestID: "\(reminder)/\(Int(due.timeIntervalSince1970))/\(time)", client: "scheduler",
                                            source: .reminder, priority: .normal, bodyKind: .text, body: "Time for your pills",
                                            queuedAt: due.addingTimeInterval(outcome == .late ? 600 : 0))
            record.reminderID = reminder
            record.outcome = outcome
            try await database.record(record)
        }
        // 7 days x 08:00 and 20:00: 11 on time (each also repeated once), 2 late, 1 missed.
        for day in 0..<7 {
            for hour in [0.0, 12] {
                let due = monday.addingTimeInterval(Double(day) * 86_400 + hour * 3600)
                switch (day, hour) {
                case (2, 0), (4, 12): try await say("pills", due, outcome: .late)
                case (5, 0):
                    var missed = AnnouncementRecord(source: .reminder, priority: .normal, bodyKind: .text, body: "Time for your pills", queuedAt: due)
                    missed.reminderID = "pills"
                    missed.outcome = .missed
                    try await database.record(missed)
                default:
                    try await say("pills", due, outcome: .played)
                    try await say("pills", due.addingTimeInterval(300), outcome: .played, time: 2)
                }
                // Anna answers the mornings 4 minutes after, Ben the evenings 10 minutes after; nobody the missed one.
                if (day, hour) != (5, 0) {
                    try await database.recordAck(ReminderAck(reminderID: "pills", dueAt: due, ackedAt: due.addingTimeInterval(hour == 0 ? 240 : 600),
                                                             ackedBy: hour == 0 ? "Anna" : "Ben"))
                }
            }
        }
        // A calendar's three firings (each its own reminder id) are one line.
        for (index, hours) in [9.0, 30, 80].enumerated() {
            try await say("calendar:family:\(index)", monday.addingTimeInterval(hours * 3600), outcome: index == 2 ? .late : .played)
        }
        // Before the week: not counted.
        try await say("pills", monday.addingTimeInterval(-12 * 3600), outcome: .played)

        let now = monday.addingTimeInterval(7 * 86_400 - 3600)
        let history = try await database.reminderHistory(since: now.addingTimeInterval(-7 * 86_400))
        let report = ReminderReport(firings: history.firings, acks: history.acks, from: now.addingTimeInterval(-7 * 86_400), to: now)
        #expect(report.lines.map(\.name) == ["calendar:family", "pills"])
        let pills = try #require(report.lines.last)
        #expect((pills.firings, pills.onTime, pills.late, pills.missed, pills.notSaid) == (14, 11, 2, 1, 0))
        #expect(pills.acknowledged == 13 && pills.acknowledgedBy == ["Anna": 6, "Ben": 7])
        #expect(pills.medianSecondsToAcknowledge == 600, "7 answers after 10 minutes, 6 after 4: the median is 10 minutes")
        let family = try #require(report.lines.first)
        #expect((family.firings, family.onTime, family.late, family.acknowledged) == (3, 2, 1, 0))
    }
}

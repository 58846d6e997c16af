import Foundation
import HeraldCore
import HeraldStore
import Testing

/// A calendar's firings in the store across reads: planned again, a firing keeps its state; a
/// handled one that a read no longer plans stays handled for days (a longer grace or a clock set
/// back must not say it again); one waiting for its acknowledgement stays; a future one whose
/// event was deleted goes.
struct CalendarFiringSyncTests {
    static let noon = try! Date("2026-12-01T12:00:00Z", strategy: .iso8601)

    static func firing(_ key: String, at: Date) -> (reminder: Reminder, at: Date) {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let parts = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: at)
        let reminder = Reminder(id: "calendar:family:\(key)", bodyKind: .text, body: "In 30 minutes: \(key)", timeZone: "UTC",
                                schedule: .once(day: DateComponents(year: parts.year, month: parts.month, day: parts.day),
                                                time: LocalTime(hour: parts.hour!, minute: parts.minute!, second: parts.second!)),
                                repeats: key == "waiting" ? ReminderRepeat(every: .seconds(300), times: 3) : nil,
                                origin: .calendar, createdAt: noon)
        return (reminder, at)
    }

    @Test func aHandledFiringIsNeverPlannedAfreshAndAWaitingOneStays() async throws {
        let folder = NSTemporaryDirectory() + "herald-calendar-sync-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try AppDatabase(path: folder + "/herald.sqlite")
        let said = Self.firing("said", at: Self.noon), waiting = Self.firing("waiting", at: Self.noon)
        let deleted = Self.firing("deleted", at: Self.noon.addingTimeInterval(3600))
        try await database.syncCalendarFirings(calendar: "family", [said, waiting, deleted], now: Self.noon.addingTimeInterval(-600))
        // The scheduler said both at noon; one waits for its answer.
        try await database.saveReminderStates([said.reminder.id: ReminderState(nextDue: nil),
                                               waiting.reminder.id: ReminderState(nextDue: nil, waiting: .init(due: Self.noon, said: 1, nextRepeat: Self.noon.addingTimeInterval(300)))])
        // A read 20 minutes later with a 15-minute grace plans none of the three (the event of the last was deleted).
        try await database.syncCalendarFirings(calendar: "family", [], now: Self.noon.addingTimeInterval(1200))
        var ids = Set(try await database.reminders().map(\.reminder.id))
        #expect(ids == [said.reminder.id, waiting.reminder.id], "the deleted event's firing went, the others stay: \(ids)")
        // A reload with a grace of an hour plans the said one again: still handled, not due again.
        try await database.syncCalendarFirings(calendar: "family", [said], now: Self.noon.addingTimeInterval(1300))
        let again = try #require(try await database.reminder(id: said.reminder.id))
        #expect(again.state.nextDue == nil, "said at noon, never planned afresh: \(again.state)")
        // Nine days on, the handled ones are gone; the one waiting stays until it is answered or escalated.
        try await database.syncCalendarFirings(calendar: "family", [], now: Self.noon.addingTimeInterval(9 * 86_400))
        ids = Set(try await database.reminders().map(\.reminder.id))
        #expect(ids == [waiting.reminder.id], "\(ids)")
        // A calendar removed from the config takes its firings with it.
        try await database.syncCalendarFirings(calendar: nil, [], keeping: [], now: Self.noon.addingTimeInterval(9 * 86_400))
        #expect(try await database.reminders().isEmpty)
    }
}

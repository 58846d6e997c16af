import Foundation
import HeraldCore
import Testing

/// Bad input names the field and says what to do; nothing else is checked after the first fault.
@Suite struct ReminderDraftTests {
    static let now = ISO8601DateFormatter().date(from: "2026-11-22T12:00:00Z")!

    func draft(_ adjust: (inout ReminderDraft) -> Void) -> ReminderDraft {
        var draft = ReminderDraft()
        draft.timeZone = "Europe/Berlin"
        var schedule = ReminderDraft.Schedule()
        schedule.daily = ["08:00"]
        draft.schedule = schedule
        adjust(&draft)
        return draft
    }

    func field(_ adjust: (inout ReminderDraft) -> Void) -> String? {
        do {
            _ = try draft(adjust).check(now: Self.now)
            return nil
        } catch {
            #expect(!error.message.isEmpty)
            return error.field
        }
    }

    @Test func eachMistakeNamesItsField() {
        #expect(field { _ in } == nil)
        #expect(field { $0.timeZone = "Mars/Olympus" } == "time_zone")
        #expect(field { $0.schedule?.daily = ["25:00"] } == "schedule.daily")
        #expect(field { $0.schedule?.days = ["funday"] } == "schedule.days")
        #expect(field { $0.schedule = { var s = ReminderDraft.Schedule(); s.every = "0m"; s.from = "09:00"; s.until = "17:00"; return s }() } == "schedule.every")
        #expect(field { $0.hasRepeat = true; $0.repeatTimes = 3 } == "repeat.every")
        #expect(field { $0.escalate = "ftp://example.org/x" } == "escalate")
        #expect(field { $0.priority = "urgent" } == "priority")
        #expect(field { $0.schedule = { var s = ReminderDraft.Schedule(); s.at = "2026-11-21T08:00"; return s }() } == "schedule.at")
        #expect(field { $0.schedule = { var s = ReminderDraft.Schedule(); s.at = "2026-02-30T08:00"; return s }() } == "schedule.at")
        #expect(field { $0.schedule?.at = "2026-12-01T08:00" } == "schedule", "two kinds of schedule at once")
    }

    @Test func aGoodOneIsChecked() throws {
        let checked = try draft {
            $0.hasRepeat = true
            $0.repeatEvery = "5m"
            $0.escalate = "https://example.org/hook"
        }.check(now: Self.now)
        #expect(checked.repeats == ReminderRepeat(every: .seconds(300), times: 3))
        #expect(checked.timeZone == "Europe/Berlin")
    }

    /// Foundation names the zone "GMT" when asked for "UTC": the reminder keeps the caller's name.
    @Test func aZoneIsListedAsItWasWritten() throws {
        #expect(try draft { $0.timeZone = "UTC" }.check(now: Self.now).timeZone == "UTC")
        #expect(try draft { _ in }.check(now: Self.now).timeZone == "Europe/Berlin")
    }
}

import Foundation
import HeraldCore
import Testing

/// The scheduler driven by a test clock: a hub switched off over a due time, repeats until
/// acknowledged, and what the caregiver is told; no sleeping.
@Suite struct ReminderSchedulerTests {
    static let utc = TimeZone(identifier: "UTC")!
    static func at(_ text: String) -> Date { ISO8601DateFormatter().date(from: "2026-11-23T\(text)Z")! }

    func reminder(repeats: ReminderRepeat? = nil) -> Reminder {
        Reminder(id: "pills", bodyKind: .text, body: "Time to take your medication", timeZone: "UTC",
                 schedule: .daily(times: [LocalTime(hour: 8, minute: 0)], days: []), repeats: repeats,
                 origin: .api, createdAt: Self.at("00:00:00"))
    }

    let scheduler = ReminderScheduler(grace: .seconds(15 * 60))

    @Test func onTimeItIsSaidOnceAndNotLate() {
        let reminder = reminder()
        var state = ReminderScheduler.initialState(for: reminder, now: Self.at("07:00:00"))
        #expect(ReminderScheduler.wake(state) == Self.at("08:00:00"))
        #expect(scheduler.step(reminder, state: &state, now: Self.at("07:59:59")).isEmpty)
        #expect(scheduler.step(reminder, state: &state, now: Self.at("08:00:00").addingTimeInterval(0.2)) == [.say(due: Self.at("08:00:00"), late: false, time: 1)])
        #expect(scheduler.step(reminder, state: &state, now: Self.at("08:00:01")).isEmpty, "said once")
        #expect(state.nextDue == ISO8601DateFormatter().date(from: "2026-11-24T08:00:00Z"))
    }

    @Test func aHubOffOverTheDueTimeSaysItLateWithinTheGrace() {
        let reminder = reminder()
        var state = ReminderScheduler.initialState(for: reminder, now: Self.at("07:00:00"))
        // Off from 07:50 to 08:10: the first step after the start.
        #expect(scheduler.step(reminder, state: &state, now: Self.at("08:10:00")) == [.say(due: Self.at("08:00:00"), late: true, time: 1)])
    }

    @Test func beyondTheGraceItIsMissedAndTheCaregiverTold() {
        let reminder = reminder()
        var state = ReminderScheduler.initialState(for: reminder, now: Self.at("07:00:00"))
        let actions = scheduler.step(reminder, state: &state, now: Self.at("08:30:00"))
        #expect(actions == [.missed(due: Self.at("08:00:00"), count: 1), .escalate(due: Self.at("08:00:00"), reason: .missed)])
        #expect(state.nextDue == ISO8601DateFormatter().date(from: "2026-11-24T08:00:00Z"))
    }

    @Test func daysOffSayOnlyTheLatestAndCountTheRest() {
        let reminder = reminder()
        var state = ReminderScheduler.initialState(for: reminder, now: Self.at("07:00:00"))
        let back = ISO8601DateFormatter().date(from: "2026-11-26T08:05:00Z")!
        let actions = scheduler.step(reminder, state: &state, now: back)
        let latest = ISO8601DateFormatter().date(from: "2026-11-26T08:00:00Z")!
        #expect(actions == [.missed(due: Self.at("08:00:00"), count: 3), .say(due: latest, late: true, time: 1)])
    }

    @Test func repeatsUntilAcknowledged() {
        let reminder = reminder(repeats: ReminderRepeat(every: .seconds(300), times: 3))
        var state = ReminderScheduler.initialState(for: reminder, now: Self.at("07:00:00"))
        #expect(scheduler.step(reminder, state: &state, now: Self.at("08:00:00")).count == 1)
        #expect(ReminderScheduler.wake(state) == Self.at("08:05:00"))
        #expect(scheduler.step(reminder, state: &state, now: Self.at("08:05:00")) == [.say(due: Self.at("08:00:00"), late: false, time: 2)])
        #expect(ReminderScheduler.acknowledge(&state))
        #expect(scheduler.step(reminder, state: &state, now: Self.at("08:10:00")).isEmpty, "no repeat after the acknowledgement")
        #expect(!ReminderScheduler.acknowledge(&state), "nothing left to acknowledge")
    }

    @Test func unansweredRepeatsRunOutAndTheCaregiverIsTold() {
        let reminder = reminder(repeats: ReminderRepeat(every: .seconds(300), times: 2))
        var state = ReminderScheduler.initialState(for: reminder, now: Self.at("07:00:00"))
        var said: [Int] = []
        var escalated: [EscalationReason] = []
        for minute in stride(from: 0, through: 20, by: 5) {
            for action in scheduler.step(reminder, state: &state, now: Self.at(String(format: "08:%02d:00", minute))) {
                switch action {
                case .say(_, _, let time): said.append(time)
                case .escalate(_, let reason): escalated.append(reason)
                case .missed: Issue.record("nothing was missed")
                }
            }
        }
        #expect(said == [1, 2, 3], "said, then twice more")
        #expect(escalated == [.unacknowledged], "once, five minutes after the last repeat")
        #expect(state.waiting == nil)
    }

    @Test func acrossMidnightTheNextDayComes() {
        let reminder = Reminder(id: "night", bodyKind: .text, body: "Lock the door", timeZone: "UTC",
                                schedule: .daily(times: [LocalTime(hour: 0, minute: 0, second: 30)], days: []),
                                origin: .api, createdAt: Self.at("23:00:00"))
        var state = ReminderScheduler.initialState(for: reminder, now: Self.at("23:59:00"))
        let due = ISO8601DateFormatter().date(from: "2026-11-24T00:00:30Z")!
        #expect(state.nextDue == due)
        #expect(scheduler.step(reminder, state: &state, now: due) == [.say(due: due, late: false, time: 1)])
    }
}

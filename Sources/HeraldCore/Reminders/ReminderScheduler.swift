import Foundation

/// What the scheduler remembers of one reminder between steps (stored beside it in SQLite, so a
/// restart knows what came due while the hub was off).
public struct ReminderState: Sendable, Equatable, Codable {
    /// The next occurrence not yet handled; nil when there is none (a one-shot done).
    public var nextDue: Date?
    /// The occurrence said and waiting for an acknowledgement, if any.
    public var waiting: Waiting?

    public struct Waiting: Sendable, Equatable, Codable {
        /// The occurrence's due time.
        public var due: Date
        /// How many times it has been said.
        public var said: Int
        /// When to say it again (or, after the last repeat, to give up and escalate).
        public var nextRepeat: Date

        public init(due: Date, said: Int, nextRepeat: Date) {
            self.due = due
            self.said = said
            self.nextRepeat = nextRepeat
        }
    }

    public init(nextDue: Date?, waiting: Waiting? = nil) {
        self.nextDue = nextDue
        self.waiting = waiting
    }
}

/// Why a caregiver is told.
public enum EscalationReason: String, Sendable, Codable {
    /// Said, repeated, and nobody acknowledged it.
    case unacknowledged
    /// Due while the hub was off (or could not check) for longer than the grace.
    case missed
}

/// What the scheduler decided for one reminder.
public enum ReminderAction: Sendable, Equatable {
    /// Say it now (through the queue). `late`: the hub was off or away over the due time and it
    /// is still within the grace. `time`: 1 for the first saying, 2… for repeats.
    case say(due: Date, late: Bool, time: Int)
    /// `count` occurrences, the first due at `due`, passed beyond the grace: log `missed`.
    case missed(due: Date, count: Int)
    /// Tell the caregiver (the webhook), for the occurrence due at `due`.
    case escalate(due: Date, reason: EscalationReason)
}

/// The reminder policy as a pure state machine (DESIGN.md "Reminders", "Lifecycle of the
/// daemon"): fed the time, it says what to say, what was missed and whom to tell. The daemon's
/// reminder service carries the actions out; the tests drive it with any clock.
public struct ReminderScheduler: Sendable {
    /// How long after its due time a reminder is still worth saying (`reminders.grace`).
    public var grace: Duration
    /// Said more than this after its due time, a firing is `late`: a timer is never this far
    /// behind, so only a hub that was off (or a daemon stopped) over the due time is.
    public static let lateTolerance: TimeInterval = 5

    public init(grace: Duration) { self.grace = grace }

    /// The state of a reminder created (or changed) at `now`.
    public static func initialState(for reminder: Reminder, now: Date) -> ReminderState {
        ReminderState(nextDue: reminder.nextDue(after: now))
    }

    /// When this reminder next needs a step: its next due time or its next repeat.
    public static func wake(_ state: ReminderState) -> Date? {
        [state.nextDue, state.waiting?.nextRepeat].compactMap { $0 }.min()
    }

    /// Everything due for `reminder` at `now`, updating `state`.
    public func step(_ reminder: Reminder, state: inout ReminderState, now: Date) -> [ReminderAction] {
        var actions: [ReminderAction] = []
        if var waiting = state.waiting, waiting.nextRepeat <= now {
            if let repeats = reminder.repeats, waiting.said <= repeats.times {
                waiting.said += 1
                waiting.nextRepeat = now.addingTimeInterval(repeats.every.inSeconds)
                state.waiting = waiting
                actions.append(.say(due: waiting.due, late: false, time: waiting.said))
            } else {
                state.waiting = nil
                actions.append(.escalate(due: waiting.due, reason: .unacknowledged))
            }
        }
        guard let first = state.nextDue, first <= now else { return actions }
        // Every occurrence up to now is handled at once: only the latest may still be said.
        var latest = first, passed = 0
        var next = reminder.nextDue(after: first)
        while let due = next, due <= now, passed < 100_000 {
            passed += 1
            latest = due
            next = reminder.nextDue(after: due)
        }
        state.nextDue = next
        if passed > 0 { actions.append(.missed(due: first, count: passed)) }
        let lateness = now.timeIntervalSince(latest)
        guard lateness <= grace.inSeconds else {
            actions.append(.missed(due: latest, count: 1))
            actions.append(.escalate(due: latest, reason: .missed))
            return actions
        }
        if let previous = state.waiting {
            // A new occurrence supersedes one nobody answered: the caregiver hears of that one.
            actions.append(.escalate(due: previous.due, reason: .unacknowledged))
            state.waiting = nil
        }
        actions.append(.say(due: latest, late: lateness > Self.lateTolerance, time: 1))
        if let repeats = reminder.repeats {
            state.waiting = .init(due: latest, said: 1, nextRepeat: now.addingTimeInterval(repeats.every.inSeconds))
        }
        return actions
    }

    /// Someone answered: no more repeats. False when it was not waiting (nothing to acknowledge).
    public static func acknowledge(_ state: inout ReminderState) -> Bool {
        guard state.waiting != nil else { return false }
        state.waiting = nil
        return true
    }
}

import Foundation

/// A reminder's timing fields as a person wrote them (API JSON, CLI options, the config file):
/// one place that checks them, so every intake gives the same message for the same mistake.
public struct ReminderDraft: Sendable {
    public struct Schedule: Sendable, Encodable {
        public var at: String?
        public var daily: [String]?
        public var days: [String]?
        public var every: String?
        public var from: String?
        public var until: String?

        public init() {}
    }

    public var priority: String?
    public var timeZone: String?
    public var schedule: Schedule?
    /// True when a `repeat` was given at all (a repeat without `every` is an error, not nothing).
    public var hasRepeat = false
    public var repeatEvery: String?
    public var repeatTimes: Int?
    public var escalate: String?

    public init() {}

    /// The checked timing of a reminder.
    public struct Checked: Sendable {
        public var priority: Priority
        public var timeZone: String
        public var schedule: ReminderSchedule
        public var repeats: ReminderRepeat?
        public var escalate: String?
    }

    /// Checks every field; a one-shot must be in the future at `now`.
    public func check(now: Date, defaultZone: TimeZone = .current) throws(ReminderInputError) -> Checked {
        var priority = Priority.normal
        if let name = self.priority {
            guard let parsed = Priority(rawValue: name.lowercased()) else {
                throw ReminderInputError("priority", "'\(name)' is not one of critical, high, normal, low")
            }
            priority = parsed
        }
        let zoneName = timeZone ?? defaultZone.identifier
        guard !zoneName.isEmpty, let zone = TimeZone(identifier: zoneName) else {
            throw ReminderInputError("time_zone", "'\(zoneName)' is not an IANA time zone; write it like Europe/Berlin or America/New_York")
        }
        guard let schedule = self.schedule else {
            throw ReminderInputError("schedule", "is required: one of at (a date and time), daily (times), every (a duration with from and until)")
        }
        let parsed = try schedule.parse()
        if case .once = parsed, parsed.nextDue(after: now, in: zone) == nil {
            throw ReminderInputError("schedule.at", "'\(schedule.at ?? "")' is in the past in \(zoneName); give a future date and time")
        }
        var repeats: ReminderRepeat?
        if hasRepeat {
            guard let text = repeatEvery else {
                throw ReminderInputError("repeat.every", "is required with repeat: how long to wait before saying it again, like 5m")
            }
            guard let every = DurationText.parse(text), every >= .seconds(1), every <= .seconds(86_400) else {
                throw ReminderInputError("repeat.every", "'\(text)' is not a duration from 1s to 24h; write it like 90s, 5m or 2h")
            }
            let times = repeatTimes ?? 3
            guard (1...100).contains(times) else {
                throw ReminderInputError("repeat.times", "\(times) is not a count from 1 to 100")
            }
            repeats = ReminderRepeat(every: every, times: times)
        }
        if let escalate { try Self.checkWebhook(escalate, field: "escalate") }
        // The name as the caller wrote it when it is one: Foundation answers "GMT" for "UTC".
        return Checked(priority: priority, timeZone: timeZone ?? zone.identifier, schedule: parsed, repeats: repeats,
                       escalate: escalate?.isEmpty == true ? nil : escalate)
    }

    /// A webhook URL must be http(s) with a host.
    public static func checkWebhook(_ text: String, field: String) throws(ReminderInputError) {
        guard !text.isEmpty else { return }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty else {
            throw ReminderInputError(field, "'\(text)' is not an http(s) URL; write it like https://example.org/herald-events")
        }
    }
}

extension ReminderDraft.Schedule {
    /// The schedule these fields describe; exactly one of `at`, `daily`, `every`.
    public func parse() throws(ReminderInputError) -> ReminderSchedule {
        let kinds = [at != nil, daily != nil, every != nil].filter { $0 }.count
        guard kinds == 1 else {
            throw ReminderInputError("schedule", "give exactly one of at (a date and time), daily (times), every (a duration with from and until)")
        }
        var weekdays: Set<Weekday> = []
        if let days {
            switch Weekday.parse(days) {
            case .success(let parsed): weekdays = parsed
            case .failure(let bad):
                throw ReminderInputError("schedule.days", "'\(bad.item)' is not a weekday; use mon, tue, wed, thu, fri, sat, sun or a range like mon-fri")
            }
            if weekdays.isEmpty { throw ReminderInputError("schedule.days", "is empty; leave it out for every day") }
        }
        if let at {
            guard days == nil else { throw ReminderInputError("schedule.days", "does not go with at (one date); use daily with days") }
            return try Self.parseAt(at)
        }
        if let daily {
            guard !daily.isEmpty else { throw ReminderInputError("schedule.daily", "is empty; give times like [\"08:00\", \"20:00\"]") }
            var times: [LocalTime] = []
            for text in daily.flatMap({ $0.split(separator: ",").map(String.init) }) {
                guard let time = LocalTime(text) else { throw Self.badTime("schedule.daily", text) }
                times.append(time)
            }
            return .daily(times: Array(Set(times)).sorted(), days: weekdays)
        }
        let text = every ?? ""
        guard let interval = DurationText.parse(text), interval >= .seconds(60), interval <= .seconds(86_400) else {
            throw ReminderInputError("schedule.every", "'\(text)' is not a duration from 1m to 24h; write it like 30m or 2h")
        }
        guard let fromText = from else { throw ReminderInputError("schedule.from", "is required with every: the first time of day, like 09:00") }
        guard let start = LocalTime(fromText) else { throw Self.badTime("schedule.from", fromText) }
        guard let untilText = until else { throw ReminderInputError("schedule.until", "is required with every: the last time of day, like 17:00") }
        guard let end = LocalTime(untilText) else { throw Self.badTime("schedule.until", untilText) }
        return .every(interval: interval, from: start, until: end, days: weekdays)
    }

    static func badTime(_ field: String, _ text: String) -> ReminderInputError {
        ReminderInputError(field, "'\(text)' is not a time of day; write HH:MM or HH:MM:SS from 00:00 to 23:59:59")
    }

    /// `2026-11-23T08:00` or `2026-11-23T08:00:30`, local to the reminder's zone (no offset).
    static func parseAt(_ text: String) throws(ReminderInputError) -> ReminderSchedule {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "T", omittingEmptySubsequences: false)
        let date = parts.first.map { $0.split(separator: "-", omittingEmptySubsequences: false) } ?? []
        guard parts.count == 2, date.count == 3, date[0].count == 4, date[1].count == 2, date[2].count == 2,
              let year = Int(date[0]), let month = Int(date[1]), let day = Int(date[2]),
              (1...12).contains(month), (1...31).contains(day) else {
            throw ReminderInputError("schedule.at", "'\(text)' is not a local date and time; write it like 2026-11-23T08:00 (no zone: time_zone gives it)")
        }
        guard let time = LocalTime(String(parts[1])) else { throw badTime("schedule.at", String(parts[1])) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard let real = calendar.date(from: components),
              calendar.component(.day, from: real) == day else {
            throw ReminderInputError("schedule.at", "'\(text)': \(date.joined(separator: "-")) is not a date in the calendar")
        }
        return .once(day: components, time: time)
    }
}

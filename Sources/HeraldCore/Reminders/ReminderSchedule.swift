import Foundation

/// When a reminder is due, in wall-clock terms of its time zone (DESIGN.md "Reminders").
///
/// Stored and shown in the API's own shape: `{"at": "2026-11-23T08:00"}`,
/// `{"daily": ["08:00", "20:00"], "days": ["mon", "fri"]}`,
/// `{"every": "30m", "from": "09:00", "until": "17:00"}`.
public enum ReminderSchedule: Sendable, Equatable {
    /// Once, at a local date and time.
    case once(day: DateComponents, time: LocalTime)
    /// At each of `times`, on `days` (empty: every day).
    case daily(times: [LocalTime], days: Set<Weekday>)
    /// Every `interval` from `from` until `until` (inclusive; `until` before `from` runs past
    /// midnight), on `days` (empty: every day), counted from `from` each day.
    case every(interval: Duration, from: LocalTime, until: LocalTime, days: Set<Weekday>)

    /// The first moment this schedule is due strictly after `instant`, in `zone`; nil when it
    /// is never due again (a one-shot in the past).
    public func nextDue(after instant: Date, in zone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        switch self {
        case .once(let day, let time):
            let moment = LocalTime.moment(day: day, seconds: time.secondsOfDay, in: zone)
            return moment > instant ? moment : nil
        case .daily(let times, let days):
            return firstAfter(instant, calendar: calendar, days: days) { times.map(\.secondsOfDay).sorted() }
        case .every(let interval, let from, let until, let days):
            let step = max(1, Int(interval.inSeconds))
            let end = until.secondsOfDay + (until < from ? 86_400 : 0)
            return firstAfter(instant, calendar: calendar, days: days) {
                Array(stride(from: from.secondsOfDay, through: end, by: step))
            }
        }
    }

    /// Walks local days from the day before `instant` (a window past midnight starts then)
    /// until a due time after `instant` turns up; `seconds` are offsets from each day's midnight.
    private func firstAfter(_ instant: Date, calendar: Calendar, days: Set<Weekday>,
                            seconds: () -> [Int]) -> Date? {
        let offsets = seconds()
        guard let today = calendar.dateComponents([.year, .month, .day], from: instant).date(in: calendar) else { return nil }
        for shift in -1...8 {
            guard let date = calendar.date(byAdding: .day, value: shift, to: today) else { continue }
            let weekday = calendar.component(.weekday, from: date)
            if !days.isEmpty && !days.contains(where: { $0.calendarWeekday == weekday }) { continue }
            let day = calendar.dateComponents([.year, .month, .day], from: date)
            for offset in offsets {
                // An offset past 24 h (a window over midnight) is a time on the next local day.
                let dayOf = offset >= 86_400 ? calendar.dateComponents([.year, .month, .day],
                                                                         from: calendar.date(byAdding: .day, value: 1, to: date)!) : day
                let moment = LocalTime.moment(day: dayOf, seconds: offset % 86_400, in: calendar.timeZone)
                if moment > instant { return moment }
            }
        }
        return nil
    }
}

private extension DateComponents {
    func date(in calendar: Calendar) -> Date? { calendar.date(from: self) }
}

extension ReminderSchedule: Codable {
    private enum Keys: String, CodingKey { case at, daily, days, every, from, until }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        func encodeDays(_ days: Set<Weekday>) throws {
            if !days.isEmpty { try container.encode(days.sorted().map(\.rawValue), forKey: .days) }
        }
        switch self {
        case .once(let day, let time):
            let date = String(format: "%04d-%02d-%02dT", day.year ?? 0, day.month ?? 0, day.day ?? 0)
            try container.encode(date + time.description, forKey: .at)
        case .daily(let times, let days):
            try container.encode(times.map(\.description), forKey: .daily)
            try encodeDays(days)
        case .every(let interval, let from, let until, let days):
            try container.encode(DurationText.format(interval), forKey: .every)
            try container.encode(from.description, forKey: .from)
            try container.encode(until.description, forKey: .until)
            try encodeDays(days)
        }
    }

    /// Reads a stored schedule; input from people goes through `ReminderDraft`, which names the field.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        var draft = ReminderDraft.Schedule()
        draft.at = try container.decodeIfPresent(String.self, forKey: .at)
        draft.daily = try container.decodeIfPresent([String].self, forKey: .daily)
        draft.days = try container.decodeIfPresent([String].self, forKey: .days)
        draft.every = try container.decodeIfPresent(String.self, forKey: .every)
        draft.from = try container.decodeIfPresent(String.self, forKey: .from)
        draft.until = try container.decodeIfPresent(String.self, forKey: .until)
        do { self = try draft.parse() } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: container.codingPath, debugDescription: error.message))
        }
    }
}

import Foundation
import HeraldCore

/// One moment an occurrence is said, and what names it across reads, restarts and reloads.
public struct CalendarFiring: Sendable, Equatable {
    /// Which rule made it: the event's own alarm (named by its trigger, so adding or reordering
    /// alarms renames none), the calendar's lead, the start, or the morning of an all-day event.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        case alarm(String), lead, start, day

        public var description: String {
            switch self {
            case .alarm(let trigger): "alarm\(trigger)"
            case .lead: "lead"
            case .start: "start"
            case .day: "day"
            }
        }
    }

    public var at: Date
    public var kind: Kind
    public var occurrence: CalendarOccurrence

    public init(at: Date, kind: Kind, occurrence: CalendarOccurrence) {
        self.at = at
        self.kind = kind
        self.occurrence = occurrence
    }

    /// Event, occurrence (its original start) and rule: the same firing however often the
    /// calendar is read; an event moved keeps its key and gets a new `at`.
    public var key: String {
        let occurrenceName = occurrence.recurrenceID.map { String(Int($0.timeIntervalSince1970)) } ?? "once"
        return "\(occurrence.uid)|\(occurrenceName)|\(kind)"
    }
}

/// When a calendar's occurrences are said (docs/reminders.md, "Calendars"): at each of the
/// event's own spoken alarms; with none, `lead` before its start; again at its start when
/// `at_start`; an all-day event with no alarm at `all_day_at` on its day, not at midnight.
public enum CalendarPlanner {
    public static func firings(of occurrences: [CalendarOccurrence], settings: CalendarSettings, zone: TimeZone) -> [CalendarFiring] {
        var firings: [CalendarFiring] = []
        for occurrence in occurrences {
            if occurrence.cancelled && settings.skipCancelled { continue }
            if occurrence.free && settings.skipFree { continue }
            var planned: [(Date, CalendarFiring.Kind)] = occurrence.alarms.map { alarm in
                switch alarm {
                case .absolute(let at): (at, .alarm("@\(Int(at.timeIntervalSince1970))"))
                case .relative(let seconds, let fromEnd):
                    ((fromEnd ? occurrence.end ?? occurrence.start : occurrence.start).addingTimeInterval(TimeInterval(seconds)),
                     .alarm("\(fromEnd ? "end" : "start")\(seconds >= 0 ? "+" : "")\(seconds)"))
                }
            }
            if let day = occurrence.allDayDate {
                if planned.isEmpty { planned.append((LocalTime.moment(day: day, seconds: settings.allDayAt.secondsOfDay, in: zone), .day)) }
            } else {
                if planned.isEmpty { planned.append((occurrence.start.addingTimeInterval(-settings.lead.inSeconds), .lead)) }
                if settings.atStart { planned.append((occurrence.start, .start)) }
            }
            // Two rules at the same moment are said once, under the same name whatever their order.
            var moments = Set<Date>()
            for (at, kind) in planned.sorted(by: { ($0.0, $0.1.description) < ($1.0, $1.1.description) }) where moments.insert(at).inserted {
                firings.append(CalendarFiring(at: at, kind: kind, occurrence: occurrence))
            }
        }
        return firings.sorted { ($0.at, $0.key) < ($1.at, $1.key) }
    }
}

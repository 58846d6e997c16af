import Foundation

/// One calendar of `calendars:` in the config: where it is read from, how often, and how its
/// events become spoken reminders (docs/reminders.md, "Calendars").
public struct CalendarSettings: Sendable, Equatable {
    /// Where the events come from.
    public enum Source: Sendable, Equatable {
        /// A CalDAV collection (Nextcloud, Radicale, Baikal, iCloud): its URL ends in `/`.
        case caldav(URL)
        /// A plain GET of an .ics (Google's secret address, an agency's export).
        case icsURL(URL)
        /// An .ics file on this machine.
        case icsFile(String)
    }

    public var name: String
    public var source: Source
    public var username: String?
    public var password: String?
    /// How often it is read (at least 15 s).
    public var poll: Duration = .seconds(60)
    /// When an event with no alarm of its own is said, before its start.
    public var lead: Duration = .seconds(30 * 60)
    /// Whether each event is said again at its start.
    public var atStart = false
    /// When an all-day event is said on its day.
    public var allDayAt = LocalTime(hour: 8, minute: 0)
    public var sayLocation = false
    /// Whether `STATUS:CANCELLED` events are skipped (else said as they are).
    public var skipCancelled = true
    /// Whether `TRANSP:TRANSPARENT` (free time) events are skipped.
    public var skipFree = true
    public var priority: Priority = .normal
    public var language: String?
    /// Room and group names; nil: the priority's rooms, as a reminder.
    public var rooms: [String]?
    public var repeats: ReminderRepeat?
    public var escalate: String?

    public init(name: String, source: Source) {
        self.name = name
        self.source = source
    }
}

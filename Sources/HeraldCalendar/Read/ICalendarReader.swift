import CICal
import Foundation
import HeraldCore
import Synchronization

/// A calendar that could not be read: nothing of it is said.
public struct CalendarReadError: Error, Equatable, CustomStringConvertible {
    public var description: String
}

/// Reads iCalendar objects with libical and expands their events into occurrences in a window:
/// `RRULE`, `RDATE`, `EXDATE`, occurrences moved or cancelled by their own `RECURRENCE-ID`, time
/// zones by `TZID` (the calendar's `VTIMEZONE` first, then the system's zone database).
public enum ICalendarReader {
    /// libical keeps process-wide state (its error number, the zones it loaded): one reader at a time.
    private static let lock = Mutex(())
    /// The most occurrences a rule may produce before the window's end; more is a rule to refuse
    /// (a `FREQ=SECONDLY` with no end), not a calendar to say.
    static let maxSteps = 100_000

    /// The occurrences of every event in `objects` (each a `VCALENDAR`: one per CalDAV resource, or
    /// one .ics) that start in `from ..< to`, soonest first, and what was skipped and why.
    /// Floating times and all-day dates are read in `zone`. Throws when an object is not iCalendar.
    public static func occurrences(in objects: [String], from: Date, to: Date, zone: TimeZone)
        throws(CalendarReadError) -> (occurrences: [CalendarOccurrence], skipped: [String]) {
        try lock.withLock { _ throws(CalendarReadError) in
            var events: [OpaquePointer] = []
            var calendars: [OpaquePointer] = []
            defer { calendars.forEach { icalcomponent_free($0) } }
            for (index, text) in objects.enumerated() {
                guard let calendar = icalparser_parse_string(text) else {
                    throw CalendarReadError(description: "object \(index + 1) is not iCalendar")
                }
                calendars.append(calendar)
                guard icalcomponent_isa(calendar) == ICAL_VCALENDAR_COMPONENT else {
                    throw CalendarReadError(description: "object \(index + 1) is not a VCALENDAR")
                }
                var event = icalcomponent_get_first_component(calendar, ICAL_VEVENT_COMPONENT)
                while let found = event {
                    events.append(found)
                    event = icalcomponent_get_next_component(calendar, ICAL_VEVENT_COMPONENT)
                }
            }
            var expansion = Expansion(from: from, to: to, zone: zone)
            // Moved or cancelled single occurrences first: their master's occurrence at the same
            // original start gives way to them.
            let overrides = events.filter { icalcomponent_get_first_property($0, ICAL_RECURRENCEID_PROPERTY) != nil }
            var replaced: [String: Set<Date>] = [:]
            for event in overrides {
                guard let uid = uid(of: event), let property = icalcomponent_get_first_property(event, ICAL_RECURRENCEID_PROPERTY) else { continue }
                guard icalcomponent_count_errors(event) == 0 else {
                    expansion.skipped.append("\(uid): a line of a moved occurrence could not be read")
                    continue
                }
                let original = expansion.instant(icalproperty_get_datetime_with_component(property, event)).at
                replaced[uid, default: []].insert(original)
                expansion.add(event, uid: uid, start: icalcomponent_get_dtstart(event), recurrenceID: original)
            }
            for event in events where icalcomponent_get_first_property(event, ICAL_RECURRENCEID_PROPERTY) == nil {
                guard let uid = uid(of: event) else {
                    expansion.skipped.append("an event with no UID")
                    continue
                }
                // libical keeps a line it could not read as an X-LIC-ERROR property: such an
                // event is not said (its time may be what was wrong), the rest of the calendar is.
                guard icalcomponent_count_errors(event) == 0 else {
                    expansion.skipped.append("\(uid): a line of it could not be read")
                    continue
                }
                expansion.expand(event, uid: uid, except: replaced[uid] ?? [])
            }
            return (expansion.found.sorted { ($0.start, $0.uid) < ($1.start, $1.uid) }, expansion.skipped)
        }
    }

    static func uid(of event: OpaquePointer) -> String? {
        icalcomponent_get_uid(event).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// The occurrences found so far in one read's window.
struct Expansion {
    let from: Date
    let to: Date
    let zone: TimeZone
    var found: [CalendarOccurrence] = []
    var skipped: [String] = []

    init(from: Date, to: Date, zone: TimeZone) {
        self.from = from
        self.to = to
        self.zone = zone
    }

    /// An iCalendar time as an instant: a date is its local midnight in `zone` (and its day), a
    /// floating time its wall-clock time in `zone`, any other through its own zone.
    func instant(_ time: icaltimetype) -> (at: Date, day: DateComponents?) {
        let day = DateComponents(year: Int(time.year), month: Int(time.month), day: Int(time.day))
        if time.is_date != 0 { return (LocalTime.moment(day: day, seconds: 0, in: zone), day) }
        if time.zone == nil && icaltime_is_utc(time) == 0 {
            return (LocalTime.moment(day: day, seconds: Int(time.hour) * 3600 + Int(time.minute) * 60 + Int(time.second), in: zone), nil)
        }
        return (Date(timeIntervalSince1970: TimeInterval(icaltime_as_timet_with_zone(time, time.zone))), nil)
    }

    /// Every occurrence of a master event in the window, but those at `except` (moved or cancelled).
    mutating func expand(_ event: OpaquePointer, uid: String, except: Set<Date>) {
        let start = icalcomponent_get_dtstart(event)
        guard icaltime_is_null_time(start) == 0, icaltime_is_valid_time(start) != 0 else {
            skipped.append("\(uid): no valid DTSTART")
            return
        }
        let rule = icalcomponent_get_first_property(event, ICAL_RRULE_PROPERTY)
        let dates = icalcomponent_get_first_property(event, ICAL_RDATE_PROPERTY)
        guard rule != nil || dates != nil else {
            add(event, uid: uid, start: start, recurrenceID: nil)
            return
        }
        // DTSTART is the first occurrence whatever the rule or dates say (RFC 5545, 3.8.5.3).
        var starts: [icaltimetype] = [start]
        if let rule {
            let recurrence = icalproperty_get_rrule(rule)
            if recurrence.freq == ICAL_SECONDLY_RECURRENCE || recurrence.freq == ICAL_MINUTELY_RECURRENCE {
                skipped.append("\(uid): a rule repeating every second or minute is not a calendar event")
                return
            }
            guard let iterator = icalrecur_iterator_new(recurrence, start) else {
                skipped.append("\(uid): its RRULE could not be read")
                return
            }
            defer { icalrecur_iterator_free(iterator) }
            // Jump close to the window when the rule allows it: not with a COUNT (counted from the
            // start; libical refuses), nor an INTERVAL over 1 (libical 3.0 can misalign those
            // after a jump), which step fast enough anyway. The 2 days of margin cover a floating
            // start, whose wall clock libical reads as UTC here.
            let lead = from.addingTimeInterval(-2 * 86_400)
            if instant(start).at < lead, recurrence.count == 0, recurrence.interval <= 1 {
                // Refused (0), it iterates from DTSTART: slower, the same occurrences.
                _ = icalrecur_iterator_set_start(iterator, icaltime_from_timet_with_zone(time_t(lead.timeIntervalSince1970), start.is_date, start.zone))
            }
            var steps = 0
            while true {
                var next = icalrecur_iterator_next(iterator)
                guard icaltime_is_null_time(next) == 0 else { break }
                next.zone = start.zone
                if instant(next).at >= to { break }
                steps += 1
                if steps > ICalendarReader.maxSteps {
                    skipped.append("\(uid): its rule gives more than \(ICalendarReader.maxSteps) occurrences before the window's end")
                    return
                }
                starts.append(next)
            }
        }
        var property = dates
        while let found = property {
            // A PERIOD value (RDATE;VALUE=PERIOD) starts at its period's start, in the event's zone.
            let value = icalproperty_get_rdate(found)
            if icaltime_is_null_time(value.time) == 0 {
                starts.append(icalproperty_get_datetime_with_component(found, event))
            } else if icaltime_is_null_time(value.period.start) == 0 {
                var periodStart = value.period.start
                if periodStart.zone == nil && icaltime_is_utc(periodStart) == 0 { periodStart.zone = start.zone }
                starts.append(periodStart)
            }
            property = icalcomponent_get_next_property(event, ICAL_RDATE_PROPERTY)
        }
        var seen = Set<Date>()
        var first = start
        for var time in starts where icaltime_is_null_time(time) == 0 {
            guard icalproperty_recurrence_is_excluded(event, &first, &time) == 0 else { continue }
            let original = instant(time).at
            guard !except.contains(original), seen.insert(original).inserted else { continue }
            add(event, uid: uid, start: time, recurrenceID: original)
        }
    }

    /// One occurrence of `event` starting at `start`, when it starts in the window.
    mutating func add(_ event: OpaquePointer, uid: String, start: icaltimetype, recurrenceID: Date?) {
        let (at, day) = instant(start)
        guard at >= from, at < to else { return }
        let status = icalcomponent_get_status(event)
        var free = false
        if let transparency = icalcomponent_get_first_property(event, ICAL_TRANSP_PROPERTY) {
            free = icalproperty_get_transp(transparency) == ICAL_TRANSP_TRANSPARENT
        }
        found.append(CalendarOccurrence(
            uid: uid, recurrenceID: recurrenceID, start: at, end: end(of: event, startingAt: at, start: start),
            allDayDate: day, summary: Self.text(icalcomponent_get_summary(event)) ?? "",
            location: Self.text(icalcomponent_get_location(event)), cancelled: status == ICAL_STATUS_CANCELLED,
            free: free, alarms: alarms(of: event)))
    }

    /// The occurrence's end: its start plus the event's length (DTEND or DURATION).
    func end(of event: OpaquePointer, startingAt at: Date, start: icaltimetype) -> Date? {
        let eventStart = icalcomponent_get_dtstart(event), eventEnd = icalcomponent_get_dtend(event)
        guard icaltime_is_null_time(eventEnd) == 0 else { return start.is_date != 0 ? at.addingTimeInterval(86_400) : nil }
        return at.addingTimeInterval(instant(eventEnd).at.timeIntervalSince(instant(eventStart).at))
    }

    /// The event's spoken alarms: `ACTION:DISPLAY` or `AUDIO` (an `EMAIL` alarm is not for the room).
    func alarms(of event: OpaquePointer) -> [CalendarOccurrence.Alarm] {
        var alarms: [CalendarOccurrence.Alarm] = []
        var alarm = icalcomponent_get_first_component(event, ICAL_VALARM_COMPONENT)
        while let found = alarm {
            defer { alarm = icalcomponent_get_next_component(event, ICAL_VALARM_COMPONENT) }
            guard let action = icalcomponent_get_first_property(found, ICAL_ACTION_PROPERTY),
                  [ICAL_ACTION_DISPLAY, ICAL_ACTION_AUDIO].contains(icalproperty_get_action(action)),
                  let trigger = icalcomponent_get_first_property(found, ICAL_TRIGGER_PROPERTY) else { continue }
            let value = icalproperty_get_trigger(trigger)
            if icaltime_is_null_time(value.time) == 0 {
                alarms.append(.absolute(instant(value.time).at))
            } else {
                let related = icalproperty_get_first_parameter(trigger, ICAL_RELATED_PARAMETER)
                let fromEnd = related.map { icalparameter_get_related($0) == ICAL_RELATED_END } ?? false
                alarms.append(.relative(seconds: Int(icaldurationtype_as_int(value.duration)), fromEnd: fromEnd))
            }
        }
        return alarms
    }

    static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
    }
}

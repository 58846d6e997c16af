import Foundation
import HeraldCore

/// One occurrence of a calendar event, its recurrence expanded and its times resolved to instants
/// (`TZID` through the calendar's own `VTIMEZONE` or libical's zone database, floating times and
/// all-day dates in the hub's zone).
public struct CalendarOccurrence: Sendable, Equatable {
    /// An alarm of the event (`VALARM` with `ACTION:DISPLAY` or `AUDIO`).
    public enum Alarm: Sendable, Equatable {
        /// Seconds from the start (or, `fromEnd`, the end); negative is before.
        case relative(seconds: Int, fromEnd: Bool)
        case absolute(Date)
    }

    public var uid: String
    /// The occurrence's original start (`RECURRENCE-ID`, or the start the rule gave it): what
    /// names this occurrence however it is moved. Nil for an event that does not recur.
    public var recurrenceID: Date?
    public var start: Date
    public var end: Date?
    /// A `VALUE=DATE` start: the local day it is on (year, month, day).
    public var allDayDate: DateComponents?
    public var summary: String
    public var location: String?
    public var cancelled: Bool
    /// `TRANSP:TRANSPARENT`: free time (a reminder to oneself, a holiday).
    public var free: Bool
    public var alarms: [Alarm]

    public init(uid: String, recurrenceID: Date? = nil, start: Date, end: Date? = nil, allDayDate: DateComponents? = nil,
                summary: String, location: String? = nil, cancelled: Bool = false, free: Bool = false, alarms: [Alarm] = []) {
        self.uid = uid
        self.recurrenceID = recurrenceID
        self.start = start
        self.end = end
        self.allDayDate = allDayDate
        self.summary = summary
        self.location = location
        self.cancelled = cancelled
        self.free = free
        self.alarms = alarms
    }
}

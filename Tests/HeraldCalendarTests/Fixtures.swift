import Foundation

/// iCalendar objects for the reader's and the planner's tests, as calendar programs write them.
enum Fixture {
    /// A VCALENDAR around `body` (one or more VEVENTs, VTIMEZONEs).
    static func calendar(_ body: String) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Herald tests//EN\r\n" + body.replacingOccurrences(of: "\n", with: "\r\n")
            + "END:VCALENDAR\r\n"
    }

    static func event(uid: String, start: String, end: String? = nil, summary: String = "Cardiology", extra: String = "") -> String {
        """
        BEGIN:VEVENT
        UID:\(uid)
        DTSTAMP:20260101T000000Z
        DTSTART\(start)
        \(end.map { "DTEND" + $0 + "\n" } ?? "")SUMMARY:\(summary)
        \(extra)END:VEVENT

        """.replacingOccurrences(of: "\n\n", with: "\n")
    }

    static func alarm(_ trigger: String, action: String = "DISPLAY") -> String {
        "BEGIN:VALARM\nACTION:\(action)\nDESCRIPTION:Reminder\nTRIGGER\(trigger)\nEND:VALARM\n"
    }

    /// Europe/Berlin as Thunderbird and Nextcloud send it.
    static let berlinZone = """
        BEGIN:VTIMEZONE
        TZID:Europe/Berlin
        BEGIN:DAYLIGHT
        TZOFFSETFROM:+0100
        TZOFFSETTO:+0200
        TZNAME:CEST
        DTSTART:19700329T020000
        RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
        END:DAYLIGHT
        BEGIN:STANDARD
        TZOFFSETFROM:+0200
        TZOFFSETTO:+0100
        TZNAME:CET
        DTSTART:19701025T030000
        RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
        END:STANDARD
        END:VTIMEZONE

        """
}

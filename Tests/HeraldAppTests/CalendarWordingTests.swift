import Foundation
import HeraldCalendar
import HeraldCore
@testable import HeraldApp
import Testing

/// What a calendar's firing says, in the calendar's language: the time to the event in ICU's
/// words, the clock time as the language writes it, "Now", "Today" and "Tomorrow".
struct CalendarWordingTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let start = try! Date("2026-12-01T09:30:00Z", strategy: .iso8601)

    func say(_ kind: CalendarFiring.Kind, at: Date, allDay: DateComponents? = nil, language: String? = nil,
             location: Bool = false) -> String {
        var calendar = CalendarSettings(name: "family", source: .icsFile("/dev/null"))
        calendar.language = language
        calendar.sayLocation = location
        let occurrence = CalendarOccurrence(uid: "u", start: Self.start, allDayDate: allDay, summary: "Cardiology, Dr. Weber",
                                            location: "Praxis am Markt")
        return CalendarWording.text(for: CalendarFiring(at: at, kind: kind, occurrence: occurrence), calendar: calendar,
                                    speech: SpeechSettings(), zone: Self.berlin)
    }

    @Test func aheadOfTheEventItSaysHowLongAndWhen() {
        #expect(say(.lead, at: Self.start.addingTimeInterval(-1800)) == "In 30 minutes: Cardiology, Dr. Weber, at 10:30\u{202F}AM"
                || say(.lead, at: Self.start.addingTimeInterval(-1800)) == "In 30 minutes: Cardiology, Dr. Weber, at 10:30 AM")
        #expect(say(.alarm("start-5400"), at: Self.start.addingTimeInterval(-5400), language: "de") == "In 1 Stunde und 30 Minuten: Cardiology, Dr. Weber, um 10:30")
        #expect(say(.lead, at: Self.start.addingTimeInterval(-600), location: true).hasPrefix("In 10 minutes: Cardiology, Dr. Weber, Praxis am Markt, at"))
    }

    @Test func atItsStartItSaysNowAndAnAllDayEventTodayOrTomorrow() {
        #expect(say(.start, at: Self.start) == "Now: Cardiology, Dr. Weber")
        #expect(say(.start, at: Self.start, language: "es") == "Ahora: Cardiology, Dr. Weber")
        let day = DateComponents(year: 2026, month: 12, day: 3)
        #expect(say(.day, at: try! Date("2026-12-03T07:00:00Z", strategy: .iso8601), allDay: day) == "Today: Cardiology, Dr. Weber")
        #expect(say(.alarm("start-54000"), at: try! Date("2026-12-02T08:00:00Z", strategy: .iso8601), allDay: day) == "Tomorrow: Cardiology, Dr. Weber")
    }
}

import Foundation
import HeraldCalendar
import HeraldCore
import Testing

/// The firing times planned for events as calendar programs write them (issue 45's matrix), read
/// by libical: alarms, the lead, recurrences with exceptions and moved occurrences, time zones
/// across DST, floating times, all-day events and cancellations.
struct CalendarPlanTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    static func instant(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    /// The firings of `body`'s events starting in 2026 (and January 2027), read in `zone`.
    static func plan(_ body: String, zone: TimeZone = berlin, settings: (inout CalendarSettings) -> Void = { _ in }) throws -> [CalendarFiring] {
        var calendar = CalendarSettings(name: "family", source: .icsFile("/dev/null"))
        settings(&calendar)
        let read = try ICalendarReader.occurrences(in: [Fixture.calendar(body)], from: instant("2026-01-01T00:00:00Z"),
                                                   to: instant("2027-02-01T00:00:00Z"), zone: zone)
        return CalendarPlanner.firings(of: read.occurrences, settings: calendar, zone: zone)
    }

    @Test func eachSpokenAlarmIsAFiringAndAnEmailAlarmIsNot() throws {
        let firings = try Self.plan(Fixture.berlinZone + Fixture.event(
            uid: "doctor", start: ";TZID=Europe/Berlin:20261201T103000", end: ";TZID=Europe/Berlin:20261201T110000",
            extra: Fixture.alarm(":-PT30M") + Fixture.alarm(":-PT1H", action: "AUDIO") + Fixture.alarm(";VALUE=DATE-TIME:20261130T180000Z")
                + Fixture.alarm(":-PT2H", action: "EMAIL") + Fixture.alarm(";RELATED=END:PT0M")))
        #expect(firings.map(\.at) == ["2026-11-30T18:00:00Z", "2026-12-01T08:30:00Z", "2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z"].map(Self.instant))
        #expect(firings.map(\.kind) == [.alarm("@1796061600"), .alarm("start-3600"), .alarm("start-1800"), .alarm("end+0")])
        #expect(Set(firings.map(\.key)).count == 4)
        // Alarms added or reordered in the calendar program rename none of the firings.
        let reordered = try Self.plan(Fixture.berlinZone + Fixture.event(
            uid: "doctor", start: ";TZID=Europe/Berlin:20261201T103000", end: ";TZID=Europe/Berlin:20261201T110000",
            extra: Fixture.alarm(";RELATED=END:PT0M") + Fixture.alarm(":-PT10M") + Fixture.alarm(":-PT30M")
                + Fixture.alarm(";VALUE=DATE-TIME:20261130T180000Z") + Fixture.alarm(":-PT1H", action: "AUDIO")))
        #expect(Set(firings.map(\.key)).isSubset(of: Set(reordered.map(\.key))) && reordered.count == 5)
    }

    @Test func startAndExtraDatesArePeriodsToo() throws {
        let event = Fixture.event(uid: "visits", start: ":20261201T090000Z",
                                  extra: "RDATE:20261203T090000Z\nRDATE;VALUE=PERIOD:20261205T140000Z/PT1H\n")
        #expect(try Self.plan(event) { $0.lead = .zero }.map(\.at)
                == ["2026-12-01T09:00:00Z", "2026-12-03T09:00:00Z", "2026-12-05T14:00:00Z"].map(Self.instant),
                "DTSTART is the first occurrence; a PERIOD starts at its start")
    }

    @Test func anEventWithALineLibicalCannotReadIsSkippedAndTheRestSaid() throws {
        let read = try ICalendarReader.occurrences(
            in: [Fixture.calendar(Fixture.event(uid: "broken", start: ":20261201T9999Z") + Fixture.event(uid: "fine", start: ":20261202T090000Z"))],
            from: Self.instant("2026-01-01T00:00:00Z"), to: Self.instant("2027-01-01T00:00:00Z"), zone: Self.berlin)
        #expect(read.occurrences.map(\.uid) == ["fine"], "\(read)")
        #expect(read.skipped.contains { $0.contains("broken") }, "\(read.skipped)")
    }

    @Test func anEventWithNoAlarmIsSaidAtTheLeadAndAgainAtItsStartWhenAsked() throws {
        let event = Fixture.event(uid: "physio", start: ":20261201T090000Z")
        #expect(try Self.plan(event).map(\.at) == [Self.instant("2026-12-01T08:30:00Z")])
        let both = try Self.plan(event) { $0.lead = .seconds(600); $0.atStart = true }
        #expect(both.map(\.at) == [Self.instant("2026-12-01T08:50:00Z"), Self.instant("2026-12-01T09:00:00Z")])
        #expect(both.map(\.kind) == [.lead, .start])
    }

    @Test func aWeeklyEventSkipsItsExceptionAndIsSaidAtItsMovedTime() throws {
        let series = Fixture.event(uid: "nurse", start: ";TZID=Europe/Berlin:20261102T100000",
                                   extra: "RRULE:FREQ=WEEKLY;COUNT=4\nEXDATE;TZID=Europe/Berlin:20261109T100000\n")
        let moved = Fixture.event(uid: "nurse", start: ";TZID=Europe/Berlin:20261117T150000", summary: "Nurse (moved)",
                                  extra: "RECURRENCE-ID;TZID=Europe/Berlin:20261116T100000\n")
        let firings = try Self.plan(Fixture.berlinZone + series + moved) { $0.lead = .zero }
        #expect(firings.map(\.at) == ["2026-11-02T09:00:00Z", "2026-11-17T14:00:00Z", "2026-11-23T09:00:00Z"].map(Self.instant))
        #expect(firings[1].occurrence.summary == "Nurse (moved)")
        // The moved one keeps the name of the occurrence it replaced.
        #expect(firings[1].occurrence.recurrenceID == Self.instant("2026-11-16T09:00:00Z"))
    }

    @Test func aCancelledOccurrenceIsNotSaidUnlessAsked() throws {
        let series = Fixture.event(uid: "choir", start: ":20261201T180000Z", extra: "RRULE:FREQ=DAILY;COUNT=3\n")
        let cancelled = Fixture.event(uid: "choir", start: ":20261202T180000Z", extra: "RECURRENCE-ID:20261202T180000Z\nSTATUS:CANCELLED\n")
        let said = try Self.plan(series + cancelled) { $0.lead = .zero }
        #expect(said.map(\.at) == [Self.instant("2026-12-01T18:00:00Z"), Self.instant("2026-12-03T18:00:00Z")])
        let all = try Self.plan(series + cancelled) { $0.lead = .zero; $0.skipCancelled = false }
        #expect(all.count == 3 && all[1].occurrence.cancelled)
        let free = Fixture.event(uid: "holiday", start: ":20261205T180000Z", extra: "TRANSP:TRANSPARENT\n")
        #expect(try Self.plan(free).isEmpty)
    }

    /// A daily 09:00 across the spring-forward and fall-back days: always 09:00 on the wall clock,
    /// whether the zone comes from the calendar's VTIMEZONE or the system's database.
    @Test(arguments: [("Europe/Berlin", "20260327", "2026-03-27T08:00:00Z", "2026-03-30T07:00:00Z", "20261023", "2026-10-23T07:00:00Z", "2026-10-26T08:00:00Z"),
                      ("America/New_York", "20260306", "2026-03-06T14:00:00Z", "2026-03-09T13:00:00Z", "20261030", "2026-10-30T13:00:00Z", "2026-11-02T14:00:00Z")])
    func aDailyEventKeepsItsWallClockTimeAcrossDST(zone: String, springStart: String, springFirst: String, springLast: String,
                                                   fallStart: String, fallFirst: String, fallLast: String) throws {
        for withZone in [false, true] where !withZone || zone == "Europe/Berlin" {
            let body = (withZone ? Fixture.berlinZone : "")
                + Fixture.event(uid: "pills-spring", start: ";TZID=\(zone):\(springStart)T090000", extra: "RRULE:FREQ=DAILY;COUNT=4\n")
                + Fixture.event(uid: "pills-fall", start: ";TZID=\(zone):\(fallStart)T090000", extra: "RRULE:FREQ=DAILY;COUNT=4\n")
            let firings = try Self.plan(body) { $0.lead = .zero }
            let spring = firings.filter { $0.occurrence.uid == "pills-spring" }.map(\.at)
            let fall = firings.filter { $0.occurrence.uid == "pills-fall" }.map(\.at)
            #expect(spring.count == 4 && fall.count == 4, "\(zone) \(withZone)")
            #expect(spring.first == Self.instant(springFirst) && spring.last == Self.instant(springLast), "\(zone) \(withZone): \(spring)")
            #expect(fall.first == Self.instant(fallFirst) && fall.last == Self.instant(fallLast), "\(zone) \(withZone): \(fall)")
        }
    }

    @Test func aFloatingTimeIsTheHubsWallClock() throws {
        let event = Fixture.event(uid: "walk", start: ":20260701T150000")
        #expect(try Self.plan(event, zone: Self.berlin) { $0.lead = .zero }.map(\.at) == [Self.instant("2026-07-01T13:00:00Z")])
        #expect(try Self.plan(event, zone: Self.newYork) { $0.lead = .zero }.map(\.at) == [Self.instant("2026-07-01T19:00:00Z")])
    }

    @Test func anAllDayEventIsSaidInTheMorningOfItsDayNotAtMidnight() throws {
        let birthday = Fixture.event(uid: "birthday", start: ";VALUE=DATE:20261203", end: ";VALUE=DATE:20261204", summary: "Grandma's birthday")
        let firings = try Self.plan(birthday) { $0.allDayAt = LocalTime(hour: 8, minute: 30) }
        #expect(firings.map(\.at) == [Self.instant("2026-12-03T07:30:00Z")])
        #expect(firings.first?.kind == .day && firings.first?.occurrence.allDayDate?.day == 3)
        // Its own alarm (Apple Calendar's default: 09:00 the day before) wins over the morning.
        let withAlarm = Fixture.event(uid: "bin", start: ";VALUE=DATE:20261203", extra: Fixture.alarm(":-PT15H"))
        #expect(try Self.plan(withAlarm).map(\.at) == [Self.instant("2026-12-02T08:00:00Z")])
    }

    @Test func aRuleWithNoEndFromLongAgoGivesOnlyTheWindowsOccurrences() throws {
        let event = Fixture.event(uid: "daily", start: ";TZID=Europe/Berlin:19900101T080000", extra: "RRULE:FREQ=DAILY\n")
        let firings = try Self.plan(event) { $0.lead = .zero }
        #expect(firings.count == 365 + 31)
        #expect(firings.first?.at == Self.instant("2026-01-01T07:00:00Z"))
    }

    /// An agency's export of 20,000 events (and one VALARM of 30 days): all read, each said once.
    @Test func twentyThousandEventsAreAllReadAndPlanned() throws {
        let body = (0..<20_000).map { index in
            Fixture.event(uid: "visit-\(index)", start: ":202612\(String(format: "%02d", index % 28 + 1))T\(String(format: "%02d", index % 24))0000Z")
        }.joined() + Fixture.event(uid: "far", start: ":20261231T090000Z", extra: Fixture.alarm(":-P30D"))
        let started = ContinuousClock.now
        let firings = try Self.plan(body) { $0.lead = .zero }
        print("20,001 events read and planned in \(ContinuousClock.now - started)")
        #expect(firings.count == 20_001 && Set(firings.map(\.key)).count == 20_001)
        #expect(firings.first { $0.occurrence.uid == "far" }?.at == Self.instant("2026-12-01T09:00:00Z"))
    }

    @Test func whatIsNotACalendarIsRefusedAndARuleEverySecondIsSkipped() throws {
        #expect(throws: CalendarReadError.self) {
            try ICalendarReader.occurrences(in: ["<html>not a calendar</html>"], from: .distantPast, to: .distantFuture, zone: Self.berlin)
        }
        let read = try ICalendarReader.occurrences(
            in: [Fixture.calendar(Fixture.event(uid: "spam", start: ":20261201T090000Z", extra: "RRULE:FREQ=SECONDLY\n")
                                  + Fixture.event(uid: "fine", start: ":20261201T090000Z"))],
            from: Self.instant("2026-01-01T00:00:00Z"), to: Self.instant("2027-01-01T00:00:00Z"), zone: Self.berlin)
        #expect(read.occurrences.map(\.uid) == ["fine"])
        #expect(read.skipped.count == 1 && read.skipped[0].contains("spam"))
    }
}

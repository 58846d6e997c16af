import Foundation
import HeraldCore
import Testing

/// Due times across midnight, weekdays and both DST changes, computed from wall-clock times.
@Suite struct ReminderScheduleTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    /// An instant from a UTC ISO 8601 string.
    static func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    func daily(_ times: [String], days: [String]? = nil) throws -> ReminderSchedule {
        var parts = ReminderDraft.Schedule()
        parts.daily = times
        parts.days = days
        return try parts.parse()
    }

    @Test func aDailyTimeAfterMidnightIsTomorrowsInItsZone() throws {
        let schedule = try daily(["08:00"])
        // 23:59 in Berlin (winter, UTC+1) is 22:59Z; the next 08:00 Berlin is 07:00Z the next day.
        #expect(schedule.nextDue(after: Self.utc("2026-11-22T22:59:00Z"), in: Self.berlin) == Self.utc("2026-11-23T07:00:00Z"))
        // Just past 08:00: tomorrow's.
        #expect(schedule.nextDue(after: Self.utc("2026-11-23T07:00:00Z"), in: Self.berlin) == Self.utc("2026-11-24T07:00:00Z"))
    }

    @Test func severalTimesADayComeInOrder() throws {
        let schedule = try daily(["20:00", "08:00"])
        #expect(schedule.nextDue(after: Self.utc("2026-11-23T07:30:00Z"), in: Self.berlin) == Self.utc("2026-11-23T19:00:00Z"))
    }

    @Test func weekdaysSkipTheWeekend() throws {
        let schedule = try daily(["08:00"], days: ["mon-fri"])
        // Friday 2026-11-27 after 08:00 Berlin: next is Monday 2026-11-30.
        #expect(schedule.nextDue(after: Self.utc("2026-11-27T08:00:00Z"), in: Self.berlin) == Self.utc("2026-11-30T07:00:00Z"))
    }

    @Test func springForwardFiresOnceAtTheFirstValidMoment() throws {
        // 2026-03-29 in Berlin: 02:00 jumps to 03:00 (01:00Z). 02:30 does not exist that day.
        let schedule = try daily(["02:30"])
        let first = try #require(schedule.nextDue(after: Self.utc("2026-03-28T23:00:00Z"), in: Self.berlin))
        #expect(first == Self.utc("2026-03-29T01:00:00Z"), "03:00 local, the first valid moment after 02:30")
        let second = try #require(schedule.nextDue(after: first, in: Self.berlin))
        #expect(second == Self.utc("2026-03-30T00:30:00Z"), "the next day's 02:30 (summer time), not twice the same day")
    }

    @Test func fallBackFiresOnce() throws {
        // 2026-10-25 in Berlin: 03:00 goes back to 02:00 (01:00Z), so 02:30 happens twice.
        let schedule = try daily(["02:30"])
        let first = try #require(schedule.nextDue(after: Self.utc("2026-10-24T22:00:00Z"), in: Self.berlin))
        #expect(first == Self.utc("2026-10-25T00:30:00Z"), "the first 02:30, summer time")
        let second = try #require(schedule.nextDue(after: first, in: Self.berlin))
        #expect(second == Self.utc("2026-10-26T01:30:00Z"), "not the second 02:30 the same night")
    }

    @Test func everyNWithinAWindowPastMidnight() throws {
        var parts = ReminderDraft.Schedule()
        parts.every = "30m"
        parts.from = "23:00"
        parts.until = "00:30"
        let schedule = try parts.parse()
        let zone = TimeZone(identifier: "UTC")!
        var due = Self.utc("2026-11-22T22:59:00Z")
        var seen: [Date] = []
        for _ in 0..<5 {
            due = try #require(schedule.nextDue(after: due, in: zone))
            seen.append(due)
        }
        #expect(seen == ["2026-11-22T23:00:00Z", "2026-11-22T23:30:00Z", "2026-11-23T00:00:00Z", "2026-11-23T00:30:00Z",
                         "2026-11-23T23:00:00Z"].map(Self.utc))
    }

    @Test func aOneShotIsDueOnceInItsZone() throws {
        var parts = ReminderDraft.Schedule()
        parts.at = "2026-11-23T08:00"
        let schedule = try parts.parse()
        let zone = TimeZone(identifier: "America/New_York")!
        #expect(schedule.nextDue(after: Self.utc("2026-11-23T00:00:00Z"), in: zone) == Self.utc("2026-11-23T13:00:00Z"))
        #expect(schedule.nextDue(after: Self.utc("2026-11-23T13:00:00Z"), in: zone) == nil)
    }

    @Test func theStoredShapeIsTheAPIShape() throws {
        let schedule = try daily(["08:00", "20:00:30"], days: ["fri", "mon"])
        let json = String(decoding: try JSONEncoder().encode(schedule), as: UTF8.self)
        #expect(json.contains(#""daily":["08:00","20:00:30"]"#) && json.contains(#""days":["mon","fri"]"#), "\(json)")
        #expect(try JSONDecoder().decode(ReminderSchedule.self, from: Data(json.utf8)) == schedule)
    }
}

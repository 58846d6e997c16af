import Foundation
import HeraldCore
import Testing

@Suite struct QuietHoursTests {
    static func at(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
    let quiet = QuietHours(windows: [QuietWindow("22:00-07:00")!], timeZone: TimeZone(identifier: "UTC")!)

    @Test func eachPriorityDoesItsOwnThingAtNight() {
        let night = Self.at("2026-11-22T23:30:00Z")
        #expect(quiet.policy(for: .critical, at: night) == .play)
        #expect(quiet.policy(for: .high, at: night) == .playQuieter)
        #expect(quiet.policy(for: .normal, at: night) == .defer)
        #expect(quiet.policy(for: .low, at: night) == .suppress)
        #expect(quiet.policy(for: .low, at: Self.at("2026-11-23T07:00:00Z")) == nil, "the window ends at 07:00")
    }

    @Test func criticalPlaysWhateverTheConfigSays() {
        var strict = quiet
        strict.policies[.critical] = .suppress
        #expect(strict.policy(for: .critical, at: Self.at("2026-11-22T23:30:00Z")) == .play)
    }

    @Test func theEndIsTheNextMorningAcrossMidnight() {
        #expect(quiet.end(after: Self.at("2026-11-22T23:30:00Z")) == Self.at("2026-11-23T07:00:00Z"))
        #expect(quiet.end(after: Self.at("2026-11-23T06:59:59Z")) == Self.at("2026-11-23T07:00:00Z"))
        #expect(quiet.end(after: Self.at("2026-11-23T12:00:00Z")) == nil)
    }

    @Test func touchingWindowsAreOneNight() {
        let two = QuietHours(windows: [QuietWindow("22:00-00:00")!, QuietWindow("00:00-06:30")!], timeZone: TimeZone(identifier: "UTC")!)
        #expect(two.end(after: Self.at("2026-11-22T22:30:00Z")) == Self.at("2026-11-23T06:30:00Z"))
    }

    @Test func windowsAreCheckedWhenParsed() {
        #expect(QuietWindow("25:00-07:00") == nil)
        #expect(QuietWindow("22:00") == nil)
        #expect(QuietWindow("07:00-07:00") == nil)
        #expect(QuietWindow("22:00:30-07:00")?.description == "22:00:30-07:00")
    }
}

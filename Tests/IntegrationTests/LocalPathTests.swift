import Foundation
import Testing

/// `herald say --local` is the daemon's own path run in the calling process: quiet hours hold a
/// normal text as `herald serve` does (deferred, not played, its row left for the next start), and
/// a critical one still plays.
extension OnTheTestSink {
@Suite final class LocalPathTests {
    init() throws {
        try SoundServer.require()
        try SoundServer.setSink(volumes: ["60%"], muted: false)
    }

    /// Quiet hours from two seconds ago to ten minutes from now, in UTC.
    static func quietNow() -> String {
        let now = Date()
        let start = ReminderTests.local(-2, from: now).text.suffix(8)
        let end = ReminderTests.local(600, from: now).text.suffix(8)
        return "quiet_hours:\n  time_zone: UTC\n  windows: [\"\(start)-\(end)\"]\n"
    }

    @Test func aNormalTextDuringQuietHoursIsDeferredAsTheDaemonDefersIt() throws {
        let harness = try HeraldHarness(extraConfig: Self.quietNow())
        let before = try SoundServer.readSink()
        let monitor = try MonitorRecording()
        let result = try harness.herald(["say", "--local", "Goodnight from the local path"])
        usleep(200_000)
        monitor.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("deferred Goodnight from the local path: quiet hours"), "\(result.stdout)")
        if let span = monitor.soundSpan() { Issue.record("heard during quiet hours: \(span)") }
        #expect(try SoundServer.readSink() == before, "the sink untouched")
        let row = try #require(try harness.history().first)
        #expect(row["body"] as? String == "Goodnight from the local path")
        #expect(row["outcome"] as? String == nil, "left in the log for herald serve: \(row)")
    }

    @Test func aCriticalOneStillPlaysDuringQuietHours() throws {
        let harness = try HeraldHarness(extraConfig: Self.quietNow())
        let result = try harness.herald(["play", "--priority", "critical", "--chime", "none",
                                         try harness.toneFile(seconds: 0.3, name: "alarm")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("played"), "\(result.stdout)")
    }
}
}

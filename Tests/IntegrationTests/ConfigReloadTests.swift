import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// A reload never holds up SIGTERM or a later reload, whatever file it is handed.
extension OnTheTestSink {
@Suite final class ConfigReloadTests {
    init() throws {
        try SoundServer.require()
    }

    /// `base` followed by about 4 MB of reminders and unknown sections: a runaway file.
    static func huge(_ base: String) -> String {
        var text = base + "\nreminders:\n  list:\n"
        var index = 0
        while text.utf8.count < 4_000_000 {
            text += "    medication_\(index):\n      text: Time to take medication number \(index)\n"
                + "      schedule:\n        daily: [\"08:00\", \"20:00\"]\n"
            index += 1
        }
        return text
    }

    /// CPU time the process has used (user and system), from /proc.
    static func cpuTime(_ pid: Int32) throws -> Duration {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        let ticks = (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        return .milliseconds(ticks * 1000 / Int(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// SIGTERM, then how long the daemon took to exit; nil when it had not within `limit` (it is
    /// then killed, so a daemon that ignores SIGTERM fails the test instead of hanging it).
    static func stop(_ daemon: Daemon, within limit: Duration = .seconds(5)) -> Duration? {
        let sent = ContinuousClock.now
        kill(daemon.process.processIdentifier, SIGTERM)
        while daemon.process.isRunning && ContinuousClock.now - sent < limit { usleep(10_000) }
        guard daemon.process.isRunning else { return ContinuousClock.now - sent }
        daemon.crash()
        return nil
    }

    /// Sends a text longer than 10 characters every `pause` microseconds (10 tries at most) until
    /// it is refused, as a reloaded `max_text_chars: 10` does; the statuses. Each try that is
    /// accepted queues a short announcement; a few tries are enough.
    static func untilTextLimitApplies(_ daemon: Daemon, pause: UInt32) throws -> [Int] {
        var statuses: [Int] = []
        for _ in 0..<10 where statuses.last != 400 {
            usleep(pause)
            statuses.append(try daemon.post("/v1/announcements", #"{"text": "A text longer than ten characters"}"#).0)
        }
        return statuses
    }

    @Test func aHugeConfigOnReloadNeverHoldsUpSIGTERM() throws {
        let (harness, port) = try HeraldHarness.listening()
        let daemon = try Daemon(harness, port: port)
        let original = try String(contentsOfFile: harness.configPath, encoding: .utf8)
        try Self.huge(original).write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        usleep(300_000)
        #expect(daemon.process.isRunning)
        let took = Self.stop(daemon)
        #expect(took.map { $0 < .seconds(2) } == true, "SIGTERM took \(took.map { "\($0)" } ?? "more than 5 s")")
        #expect(daemon.process.terminationStatus == 0)
    }

    @Test func aGoodConfigAfterAHugeOneIsApplied() throws {
        let (harness, port) = try HeraldHarness.listening()
        let daemon = try Daemon(harness, port: port)
        defer { _ = Self.stop(daemon) }
        let original = try String(contentsOfFile: harness.configPath, encoding: .utf8)
        try Self.huge(original).write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        let before = try Self.cpuTime(daemon.process.processIdentifier)
        kill(daemon.process.processIdentifier, SIGHUP)
        sleep(1)
        let used = try Self.cpuTime(daemon.process.processIdentifier) - before
        #expect(used < .milliseconds(500), "the reload of a 4 MB file burned \(used) of CPU in 1 s")
        let listen = "  listen: 127.0.0.1:\(port)"
        try original.replacingOccurrences(of: listen, with: listen + "\n  max_text_chars: 10")
            .write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        let statuses = try Self.untilTextLimitApplies(daemon, pause: 500_000)
        #expect(statuses.last == 400, "the good config was not applied: \(statuses)")
    }

    /// Issue 42: a 47 KB config of 2,000 chained groups, sent by SIGHUP, burned a core for 23 s
    /// and held up the next good reload. Now it is checked at once, applied, and the next one
    /// follows within a second.
    @Test func aChainOfGroupsOnReloadCostsLittleAndTheNextReloadFollows() throws {
        let (harness, port) = try HeraldHarness.listening()
        let daemon = try Daemon(harness, port: port)
        defer { _ = Self.stop(daemon) }
        let original = try String(contentsOfFile: harness.configPath, encoding: .utf8)
        var chain = "\nrooms:\n  kitchen: {sink: \(SoundServer.sink)}\ngroups:\n  g0: [kitchen]\n"
        for index in 1..<2_000 { chain += "  g\(index): [g\(index - 1)]\n" }
        try (original + chain + "defaults:\n  rooms: [g1999]\n").write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        let before = try Self.cpuTime(daemon.process.processIdentifier)
        kill(daemon.process.processIdentifier, SIGHUP)
        let listen = "  listen: 127.0.0.1:\(port)"
        try (original.replacingOccurrences(of: listen, with: listen + "\n  max_text_chars: 10") + chain)
            .write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        let statuses = try Self.untilTextLimitApplies(daemon, pause: 200_000)
        #expect(statuses.last == 400 && statuses.count <= 5, "the second reload took effect within a second: \(statuses)")
        let used = try Self.cpuTime(daemon.process.processIdentifier) - before
        #expect(used < .milliseconds(1500), "two reloads of 2,000 chained groups burned \(used) of CPU")
    }
}
}

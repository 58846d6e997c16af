import Foundation
import Testing

/// A kill -9 aimed around an announcement's last sample (-36 to +28 ms of it, as the fault
/// campaign aimed them): one heard to its end is never said again at the next start, and one
/// cut short is (nothing lost). The kill's moment and the last sample are both read on the
/// monitor's own timeline (the recording's length when the kill is sent, within parec's 10 ms).
extension OnTheTestSink {
@Suite final class KillAtTheEndTests {
    /// A stretch of sound on the monitor, in seconds of the recording.
    struct Stretch { var start: Double, end: Double }

    /// Stretches louder than `floor`, split where 30 ms of silence lies between (the ding is one
    /// tone; a restart said it again 0.1 s after a kill).
    static func stretches(_ samples: [Float], floor: Float = 0.002) -> [Stretch] {
        let rate = Double(MonitorRecording.rate), gap = Int(0.03 * rate)
        var found: [Stretch] = [], start: Int?, last = 0
        for (index, sample) in samples.enumerated() where abs(sample) > floor {
            if let begun = start, index - last > gap {
                found.append(Stretch(start: Double(begun) / rate, end: Double(last + 1) / rate))
                start = index
            } else if start == nil {
                start = index
            }
            last = index
        }
        if let start { found.append(Stretch(start: Double(start) / rate, end: Double(last + 1) / rate)) }
        return found
    }

    /// Milliseconds until the clip playing now ends, by the daemon's status.
    static func remaining(_ daemon: Daemon) throws -> Int? {
        let status = try daemon.get("/v1/status")["daemon"] as? [String: Any]
        guard let current = status?["current"] as? [String: Any], let length = current["duration_milliseconds"] as? Int,
              let elapsed = status?["current_elapsed_milliseconds"] as? Int, length - elapsed > 80 else { return nil }
        return length - elapsed
    }

    @Test func aKillJustAfterTheLastSampleNeverSaysItAgainAndOneBeforeItDoes() throws {
        try SoundServer.require()
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let (harness, port) = try HeraldHarness.listening("")
        var trials: [(offset: Int, afterEnd: Double, firstHeard: Double, saidAgain: Bool, heard: String)] = []
        for offset in stride(from: -36, through: 28, by: 4) {
            var daemon = try Daemon(harness, port: port)
            let monitor = try MonitorRecording()
            let (status, row) = try daemon.post("/v1/announcements", #"{"clip": "ding", "chime": "none"}"#)
            #expect(status == 202, "\(row)")
            let id = try #require(row["id"] as? String)
            var left: Int?
            try SoundServer.waitFor("the ding playing") {
                left = try Self.remaining(daemon)
                return left != nil
            }
            usleep(UInt32(max(0, (left ?? 0) + offset)) * 1000)
            let killedAt = monitor.position
            daemon.crash()
            daemon = try Daemon(harness, port: port)
            try SoundServer.waitFor("its outcome after the restart", timeout: 15) {
                try daemon.get("/v1/announcements/\(id)")["outcome"] as? String != nil
            }
            usleep(600_000)
            monitor.stop()
            _ = daemon.stop()
            let heard = Self.stretches(monitor.samples)
            let first = try #require(heard.first, "offset \(offset): nothing heard")
            let again = heard.count > 1
            trials.append((offset, killedAt - first.end, first.end - first.start, again, heard.map { String(format: "%.3f-%.3f", $0.start, $0.end) }.joined(separator: " ") + String(format: " kill %.3f", killedAt)))
        }
        let table = trials.map { String(format: "%+3d ms: kill %+6.1f ms after the last sample, heard %.3f s, %@", $0.offset, $0.afterEnd * 1000,
                                        $0.firstHeard, $0.saidAgain ? "said again" : "not said again") + " " + $0.heard }
        print("KillAtTheEndTests:\n" + table.joined(separator: "\n"))
        let whole = trials.map(\.firstHeard).max() ?? 0
        // After the end (beyond the monitor's 10 ms of blur and a busy machine's timer): never said again.
        let after = trials.filter { $0.afterEnd > 0.010 }
        #expect(after.count >= 3, "too few kills landed after the end to judge:\n\(table.joined(separator: "\n"))")
        #expect(after.allSatisfy { !$0.saidAgain }, "said twice:\n\(table.joined(separator: "\n"))")
        // Not said again: it was heard to its end, or all but the last 15 ms of its sound (the
        // said mark is written that long ahead: `PulseConnection.nearEndLead`).
        #expect(trials.filter { !$0.saidAgain }.allSatisfy { $0.firstHeard > whole - 0.025 },
                "cut short and not said again:\n\(table.joined(separator: "\n"))")
    }
}
}

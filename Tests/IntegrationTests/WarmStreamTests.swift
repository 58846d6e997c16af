import Foundation
import Testing

/// The daemon's warm stream (issue 9): a corked stream kept on the target sink between
/// announcements, uncorked to speak, never keeping the sink awake, following the target sink.
extension OnTheTestSink {
@Suite final class WarmStreamTests {
    init() throws {
        try SoundServer.require()
    }

    /// Herald's sink-inputs on the server `pulse` names, or those of `daemon` on the test server
    /// (where other suites' Herald processes may be playing too).
    static func heraldStreams(_ pulse: PrivatePulse? = nil, of daemon: Daemon? = nil) throws -> [(index: Int, sink: Int, corked: Bool)] {
        try SoundServer.readStreams(environment: pulse.map { ["PULSE_SERVER": $0.address] } ?? [:])
            .filter { $0.application == "Herald" && (daemon == nil || $0.pid == Int(daemon!.process.processIdentifier)) }
            .map { ($0.index, $0.sink, $0.corked) }
    }

    /// The index and state (`RUNNING`, `IDLE`, `SUSPENDED`) of `sink` on `pulse`.
    static func sink(_ name: String, on pulse: PrivatePulse) throws -> (index: Int, state: String)? {
        for line in try pulse.pactl(["list", "short", "sinks"]).split(separator: "\n") {
            let fields = line.split(separator: "\t").map(String.init)
            if fields.count >= 5, fields[1] == name, let index = Int(fields[0]) { return (index, fields[4]) }
        }
        return nil
    }

    /// Waits until Herald keeps exactly one stream, corked, on `sinkName`; returns its index.
    @discardableResult
    static func waitForWarmStream(on sinkName: String, _ pulse: PrivatePulse) throws -> Int {
        var index = -1
        try SoundServer.waitFor("a corked Herald stream on \(sinkName)", timeout: 10) {
            guard let sink = try sink(sinkName, on: pulse) else { return false }
            let streams = try heraldStreams(pulse)
            index = streams.first?.index ?? -1
            return streams.count == 1 && streams[0].sink == sink.index && streams[0].corked
        }
        return index
    }

    /// `herald serve` on `pulse` with no sink configured (the server's default).
    static func daemon(on pulse: PrivatePulse) throws -> Daemon {
        let harness = try HeraldHarness(sink: nil)
        let port = UnattendedDaemonTests.port()
        try harness.appendConfig("api:\n  listen: 127.0.0.1:\(port)\n")
        return try Daemon(harness, port: port, environment: ["PULSE_SERVER": pulse.address], keeping: harness)
    }

    @Test func anAnnouncementIsHeardFromTheWarmStreamWhichIsCorkedAgainAfter() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let port = UnattendedDaemonTests.port()
        let harness = try HeraldHarness(extraConfig: "api:\n  listen: 127.0.0.1:\(port)\n")
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        var warm = -1
        try SoundServer.waitFor("the daemon's corked stream") {
            let streams = try Self.heraldStreams(of: daemon)
            warm = streams.first?.index ?? -1
            return streams.count == 1 && streams[0].corked
        }
        let monitor = try MonitorRecording()
        let (status, accepted) = try daemon.post("/v1/announcements", #"{"text": "\#(UnattendedDaemonTests.longText)"}"#)
        #expect(status == 202)
        let id = try #require(accepted["id"] as? String)
        var playedOn: Set<Int> = []
        try SoundServer.waitFor("Herald speaking") {
            let playing = try Self.heraldStreams(of: daemon).filter { !$0.corked }
            playedOn.formUnion(playing.map(\.index))
            return !playing.isEmpty
        }
        #expect(playedOn == [warm], "spoken on the warm stream \(warm), not on a new one: \(playedOn)")
        try SoundServer.waitFor("the announcement played", timeout: 30) {
            try daemon.get("/v1/announcements/\(id)")["outcome"] as? String == "played"
        }
        monitor.stop()
        #expect(monitor.soundSpan() != nil, "heard on the monitor")
        let after = try Self.heraldStreams(of: daemon)
        #expect(after.count == 1 && after[0].index == warm && after[0].corked, "kept, corked again: \(after)")
    }

    @Test func theCorkedStreamLetsTheSinkSuspendAndASuspendedSinkStillSpeaks() throws {
        let pulse = try PrivatePulse(sinks: ["speaker_a"])
        try pulse.pactl(["load-module", "module-suspend-on-idle", "timeout=1"])
        let daemon = try Self.daemon(on: pulse)
        defer { daemon.stop() }
        let warm = try Self.waitForWarmStream(on: "speaker_a", pulse)
        try SoundServer.waitFor("speaker_a suspended beside the corked stream", timeout: 10) {
            try Self.sink("speaker_a", on: pulse)?.state == "SUSPENDED"
        }
        let (status, row) = try daemon.post("/v1/announcements?wait=true", #"{"text": "Table four, your order is ready."}"#)
        #expect(status == 200 && row["outcome"] as? String == "played", "\(row)")
        #expect(try Self.waitForWarmStream(on: "speaker_a", pulse) == warm, "the same stream, corked again")
        try SoundServer.waitFor("speaker_a suspended again after speaking", timeout: 10) {
            try Self.sink("speaker_a", on: pulse)?.state == "SUSPENDED"
        }
    }

    @Test func theWarmStreamFollowsTheDefaultSinkAndASinkThatGoesAndComesBack() throws {
        let pulse = try PrivatePulse(sinks: ["speaker_a", "speaker_b"])
        try pulse.pactl(["set-default-sink", "speaker_a"])
        let daemon = try Self.daemon(on: pulse)
        defer { daemon.stop() }
        try Self.waitForWarmStream(on: "speaker_a", pulse)
        try pulse.pactl(["set-default-sink", "speaker_b"])
        try Self.waitForWarmStream(on: "speaker_b", pulse)
        // speaker_b unplugged: its stream dies with it and the default falls back to speaker_a.
        let modules = try pulse.pactl(["list", "short", "modules"])
        let module = try #require(modules.split(separator: "\n").first { $0.contains("sink_name=speaker_b") }?
            .split(separator: "\t").first)
        try pulse.pactl(["unload-module", String(module)])
        try Self.waitForWarmStream(on: "speaker_a", pulse)
        // Plugged in again and chosen: the stream is there before the next announcement.
        try pulse.pactl(["load-module", "module-null-sink", "sink_name=speaker_b", "rate=48000", "channels=2"])
        try pulse.pactl(["set-default-sink", "speaker_b"])
        let warm = try Self.waitForWarmStream(on: "speaker_b", pulse)
        try pulse.pactl(["set-sink-volume", "speaker_b", "60%"])
        let monitor = try MonitorRecording(sink: "speaker_b", pulse: pulse.address)
        let (status, row) = try daemon.post("/v1/announcements?wait=true", #"{"text": "Table four, your order is ready."}"#)
        monitor.stop()
        #expect(status == 200 && row["outcome"] as? String == "played" && row["sink"] as? String == "speaker_b", "\(row)")
        #expect(monitor.soundSpan() != nil, "heard on speaker_b")
        #expect(try Self.waitForWarmStream(on: "speaker_b", pulse) == warm)
    }
}
}

import Foundation
import Testing

/// A stream Herald ducked when the sound server died comes back, when its application reconnects,
/// with the volume module-stream-restore saved: Herald's duck. Found by the soak (issue 27): a
/// radio left muted after a server restart.
extension OnTheTestSink {
@Suite final class ReturningStreamTests {
    init() throws {
        try SoundServer.require()
    }

    @Test func aRadioDuckedWhenTheServerDiedIsPutBackWhenItReconnectsAfterHeraldRecovered() throws {
        let pulse = try PrivatePulse()
        let environment = ["PULSE_SERVER": pulse.address]
        try pulse.pactl(["set-sink-volume", "herald_private", "60%"])
        let harness = try HeraldHarness(sink: nil)
        let tone = try harness.toneFile(frequency: HeraldHarness.musicTone, seconds: 120, name: "radio")
        let original = 40_000
        func startRadio() throws -> Process {
            let player = try SoundServer.start("paplay", ["-d", "herald_private", "--volume=\(original)",
                                                          "--property=application.name=test-radio", tone],
                                               environment: environment)
            try SoundServer.waitFor("the radio stream") { try radio() != nil }
            return player
        }
        func radio() throws -> (volume: UInt32, muted: Bool)? {
            try SoundServer.readStreams(environment: environment).first { $0.application == "test-radio" }
                .map { ($0.volumes.first ?? 0, $0.muted) }
        }
        var player = try startRadio()
        defer { player.terminate() }

        let port = UnattendedDaemonTests.port()
        try harness.appendConfig("api:\n  listen: 127.0.0.1:\(port)\n")
        let daemon = try Daemon(harness, port: port, environment: environment, keeping: harness)
        defer { daemon.stop() }
        let (status, _) = try daemon.post("/v1/announcements", #"{"text": "\#(UnattendedDaemonTests.longText)", "priority": "high"}"#)
        #expect(status == 202)
        var ducked: UInt32 = 0
        try SoundServer.waitFor("the radio ducked") {
            ducked = try radio()?.volume ?? UInt32(original)
            return ducked < UInt32(original) / 2
        }
        usleep(300_000)
        pulse.kill()
        player.terminate()
        try pulse.start()
        // Herald reconnects and applies its journal before the radio is back: the radio must be
        // waited for, not looked for once.
        try SoundServer.waitFor("the journal applied after the restart", timeout: 20) {
            (try daemon.get("/v1/status")["sound"] as? [String: Any])?["pending_journal"] as? Bool == false
        }
        player = try startRadio()
        let returned = try #require(try radio())
        try SoundServer.waitFor("the radio back at its own volume", timeout: 30) {
            try radio()?.volume == UInt32(original)
        }
        #expect(try radio()?.muted == false)
        print("figures: radio ducked to \(ducked) of \(original); it came back after the server restart at \(returned.volume) and was put back")
    }
}
}

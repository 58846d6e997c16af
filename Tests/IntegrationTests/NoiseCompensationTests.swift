import Foundation
import Testing

/// Heard over the noise, on a real PulseAudio: a null sink `room_mic` whose monitor is the room's
/// microphone is fed band-limited noise of known level; the counter's speaker is raised by the
/// gain the law gives (read from the sink's volume and from the announcement's level on its
/// monitor), restored exactly after; Herald's own voice at the microphone, a door slam and a
/// microphone pulled out change nothing they should not.
extension OnTheTestSink {
@Suite final class NoiseCompensationTests {
    let microphone = "room_mic_\(getpid())"
    let counter = "room_counter_\(getpid())"
    var modules: [String: String] = [:]
    var players: [Process] = []

    init() throws {
        try SoundServer.require()
        for sink in [microphone, counter] { try load(sink) }
        _ = try SoundServer.run("/usr/bin/pactl", ["set-sink-volume", microphone, "100%"])
        _ = try SoundServer.run("/usr/bin/pactl", ["set-sink-volume", counter, "40%"])
    }

    deinit {
        for player in players where player.isRunning { kill(player.processIdentifier, SIGKILL) }
        for module in modules.values { _ = try? SoundServer.run("/usr/bin/pactl", ["unload-module", module]) }
    }

    func load(_ sink: String) throws {
        modules[sink] = try SoundServer.run("/usr/bin/pactl", ["load-module", "module-null-sink", "sink_name=\(sink)"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func unload(_ sink: String) throws {
        guard let module = modules.removeValue(forKey: sink) else { return }
        _ = try SoundServer.run("/usr/bin/pactl", ["unload-module", module])
    }

    /// The counter's speaker on its own sink, its microphone the monitor of `room_mic` (or, with
    /// `speakerAtTheMicrophone`, the counter plays into `room_mic` itself: the worst case).
    func daemon(speakerAtTheMicrophone: Bool = false) throws -> (Daemon, HeraldHarness) {
        let (harness, port) = try HeraldHarness.listening("""
            rooms:
              counter:
                sink: \(speakerAtTheMicrophone ? microphone : counter)
                safeguard: {min_volume: 40%, target_volume: 40%, max_volume: 100%}
                noise: {source: \(microphone).monitor, threshold: -50dB, ratio: 1, max_gain: 12dB, window: 5s, sense_delay: 300ms}
            """)
        return (try Daemon(harness, port: port, keeping: harness), harness)
    }

    /// Plays noise at `dBFS` (RMS, in the speech band: a sum of tones from 600 Hz to 2 kHz) into
    /// the microphone's room for `seconds`.
    @discardableResult
    func playNoise(_ dBFS: Double, seconds: Double = 120, into sink: String? = nil, pulse: String? = nil) throws -> Process {
        let rate = 48_000, tones = stride(from: 600.0, through: 2_000, by: 140).map { $0 }
        // Equal tones with spread phases: RMS = amplitude x sqrt(count / 2).
        let amplitude = pow(10, dBFS / 20) / (Double(tones.count) / 2).squareRoot()
        var samples = [Float](repeating: 0, count: Int(seconds * Double(rate)))
        for (index, tone) in tones.enumerated() {
            let phase = Double(index) * 2.399
            for n in samples.indices { samples[n] += Float(amplitude * sin(2 * .pi * tone * Double(n) / Double(rate) + phase)) }
        }
        let path = NSTemporaryDirectory() + "herald-noise-\(UUID().uuidString).raw"
        #expect(FileManager.default.createFile(atPath: path, contents: samples.withUnsafeBytes { Data($0) }))
        let player = Process()
        player.executableURL = URL(fileURLWithPath: "/usr/bin/pacat")
        player.arguments = ["--playback", "-d", sink ?? microphone, "--raw", "--format=float32le", "--rate=\(rate)", "--channels=1", path]
        player.environment = SoundServer.environment.merging(pulse.map { ["PULSE_SERVER": $0] } ?? [:]) { $1 }
        player.standardOutput = FileHandle.nullDevice
        player.standardError = FileHandle.nullDevice
        try player.run()
        players.append(player)
        return player
    }

    func stopNoise() {
        for player in players where player.isRunning {
            kill(player.processIdentifier, SIGKILL)
            player.waitUntilExit()
        }
        players = []
    }

    /// The counter's noise in `/v1/status`.
    func reading(_ daemon: Daemon) throws -> [String: Any] {
        let rooms = (try daemon.get("/v1/status")["sound"] as? [String: Any])?["rooms"] as? [[String: Any]] ?? []
        return rooms.first { $0["room"] as? String == "counter" }?["noise"] as? [String: Any] ?? [:]
    }

    /// Waits until the counter's floor is within 1.5 dB of `dBFS` (the 5 s window filled with it).
    func waitForFloor(_ daemon: Daemon, near dBFS: Double) throws {
        try SoundServer.waitFor("the counter's floor near \(dBFS) dBFS", timeout: 20) {
            (try reading(daemon)["floor_dbfs"] as? Double).map { abs($0 - dBFS) < 1.5 } == true
        }
    }

    /// One `ding` to the counter, heard on its monitor: the row's counter outcome and the ding's level.
    func announce(_ daemon: Daemon) throws -> (room: [String: Any], level: Double) {
        let monitor = try MonitorRecording(sink: counter)
        let (status, row) = try daemon.post("/v1/announcements?wait=true", #"{"clip": "ding", "rooms": ["counter"]}"#)
        usleep(300_000)
        monitor.stop()
        #expect(status == 200 && row["outcome"] as? String == "played", "\(row)")
        let room = (row["rooms"] as? [[String: Any]])?.first ?? [:]
        return (room, monitor.heardLevel(frequency: RoomPlaybackTests.ding, floor: 0.001))
    }

    @Test func theCounterIsRaisedByTheNoiseOverTheThresholdAtMostTwelveDecibelsAndRestoredExactly() throws {
        let (daemon, harness) = try daemon()
        defer { daemon.stop() }
        let before = try SoundServer.readSink(named: counter)
        var quietLevel = 0.0
        for (noise, gain) in [(-60.0, 0.0), (-40.0, 10.0), (-25.0, 12.0)] {
            stopNoise()
            try playNoise(noise)
            try waitForFloor(daemon, near: noise)
            let (room, level) = try announce(daemon)
            let floor = try #require(room["noise_floor_dbfs"] as? Double, "\(room)")
            let given = try #require(room["noise_gain_db"] as? Double, "\(room)")
            #expect(abs(floor - noise) < 1.5, "floor \(floor) for noise at \(noise)")
            #expect(abs(given - gain) < 1.5, "gain \(given) for noise at \(noise)")
            // On the cubic curve: 40% raised by g dB is 40 x 10^(g/60) percent.
            let volume = try #require(room["volume_percent"] as? Int, "\(room)")
            #expect(abs(Double(volume) - 40 * pow(10, given / 60)) <= 1, "played at \(volume)% for +\(given) dB")
            // What was heard: the ding's level on the counter's monitor, against the quiet room's.
            if gain == 0 { quietLevel = level } else {
                let heard = 20 * log10(level / quietLevel)
                #expect(abs(heard - given) < 1.5, "heard +\(heard) dB louder for +\(given) dB")
            }
            let after = try SoundServer.readSink(named: counter)
            #expect(after.volumes == before.volumes && after.muted == before.muted, "restored exactly: \(after) vs \(before)")
        }
        // A door slam (2 s at -15 dBFS over a -40 dBFS room) does not change the gain.
        stopNoise()
        try playNoise(-40)
        try waitForFloor(daemon, near: -40)
        try playNoise(-15, seconds: 2).waitUntilExit()
        let (slammed, _) = try announce(daemon)
        #expect(abs((slammed["noise_gain_db"] as? Double ?? 0) - 10) < 1.5, "\(slammed)")
        // The receipt is in the history too.
        let listed = try harness.history().first?["rooms"] as? [[String: Any]]
        #expect(listed?.first?["noise_gain_db"] != nil && listed?.first?["volume_percent"] != nil, "\(String(describing: listed))")
        // /metrics shows the room's level and gain.
        let metrics = String(decoding: Daemon.rawRequest("GET", daemon.base + "/metrics").1 ?? Data(), as: UTF8.self)
        #expect(metrics.contains(#"herald_room_noise_dbfs{room="counter"}"#) && metrics.contains(#"herald_room_noise_gain_db{room="counter"}"#), "\(metrics.prefix(400))")
    }

    @Test func herOwnVoiceAtTheMicrophoneDoesNotRaiseTheFloorOverTwentyAnnouncements() throws {
        let (daemon, harness) = try daemon(speakerAtTheMicrophone: true)
        defer { daemon.stop() }
        try playNoise(-60)
        try waitForFloor(daemon, near: -60)
        for _ in 0..<20 {
            let (status, row) = try daemon.post("/v1/announcements?wait=true", #"{"text": "Payment received, two hundred rupees", "rooms": ["counter"], "chime": "none"}"#)
            #expect(status == 200 && row["outcome"] as? String == "played", "\(row)")
        }
        let floors = try harness.history().compactMap { ($0["rooms"] as? [[String: Any]])?.first?["noise_floor_dbfs"] as? Double }
        #expect(floors.count == 20 && floors.allSatisfy { abs($0 + 60) < 1.5 }, "the floor each announcement got: \(floors)")
        let after = try reading(daemon)
        #expect((after["floor_dbfs"] as? Double).map { abs($0 + 60) < 1.5 } == true && after["gain_db"] as? Double == 0, "\(after)")
    }

    @Test func aMicrophonePulledOutLeavesThePlainSafeguardWithAWarningAndTheAnnouncementPlays() throws {
        let (daemon, harness) = try daemon()
        try playNoise(-30)
        try waitForFloor(daemon, near: -30)
        stopNoise()
        try unload(microphone)
        try SoundServer.waitFor("the counter's microphone missed", timeout: 10) {
            (try reading(daemon)["problem"] as? String)?.contains(microphone) == true
        }
        let (room, _) = try announce(daemon)
        #expect(room["noise_gain_db"] as? Double == 0 && room["noise_floor_dbfs"] == nil, "\(room)")
        #expect(room["volume_percent"] as? Int == 40, "the plain safeguard: \(room)")
        let doctor = try harness.herald(["doctor"])
        #expect(doctor.stdout.contains("noise counter") && doctor.stdout.contains("no source \(microphone).monitor"), "\(doctor.stdout)")
        let check = try harness.herald(["config", "check"])
        #expect(check.status != 0 && check.stderr.contains("rooms.counter.noise.source") && check.stderr.contains(microphone), "\(check.stderr)")
        daemon.stop()
        let log = String(decoding: (daemon.process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        #expect(log.contains("room counter: its microphone is not heard"), "\(log.suffix(2000))")
    }

    /// As a newcomer's box does: the sound server comes after the daemon, and dies under it.
    @Test func theMicrophoneIsHeardWhenTheSoundServerComesLateAndAgainAfterItDied() throws {
        let pulse = try PrivatePulse(sinks: ["late_counter", "late_mic"], start: false)
        let (harness, port) = try HeraldHarness.listening("""
            rooms:
              counter:
                sink: late_counter
                noise: {source: late_mic.monitor, threshold: -50dB, window: 5s}
            """)
        let daemon = try Daemon(harness, port: port, environment: ["PULSE_SERVER": pulse.address], keeping: harness)
        defer { daemon.stop() }
        try SoundServer.waitFor("the daemon to say it has no sound server", timeout: 10) {
            (try reading(daemon)["problem"] as? String)?.contains("no sound server") == true
        }
        for round in 1...2 {
            try pulse.start()
            try pulse.pactl(["set-sink-volume", "late_mic", "100%"])
            try playNoise(-40, into: "late_mic", pulse: pulse.address)
            try waitForFloor(daemon, near: -40)
            pulse.kill()
            stopNoise()
            try SoundServer.waitFor("the daemon to see the server gone", timeout: 10) {
                (try reading(daemon)["problem"] as? String)?.contains("no sound server") == true
            }
            try #require(UnattendedDaemonTests.isAlive(daemon), "round \(round)")
        }
        try pulse.start()
        try playNoise(-40, into: "late_mic", pulse: pulse.address)
        try waitForFloor(daemon, near: -40)
        let (status, row) = try daemon.post("/v1/announcements?wait=true", #"{"clip": "ding", "rooms": ["counter"]}"#)
        let room = (row["rooms"] as? [[String: Any]])?.first ?? [:]
        #expect(status == 200 && abs((room["noise_gain_db"] as? Double ?? 0) - 10) < 1.5, "\(row)")
        pulse.kill()
    }
}
}

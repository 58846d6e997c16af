import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `herald serve` left alone: no config file, crashes, a sound server that is missing, killed or
/// restarted, SIGTERM with a queue (issue 7). Servers of their own where the test kills them.
extension OnTheTestSink {
@Suite final class UnattendedDaemonTests {
    /// About six seconds of speech: long enough to act while it plays.
    static let longText = "Attention please. This announcement is long enough to be cut off in the middle, so that the test can do something to the sound server while it plays."

    init() throws {
        try SoundServer.require()
    }

    static func port() -> Int { DaemonTests.port() }

    /// `herald serve` on `pulse` (no sink configured: the server's default), with a long high
    /// announcement under way; returns the daemon and the announcement's id.
    static func speakingDaemon(on pulse: PrivatePulse) throws -> (Daemon, String) {
        let harness = try HeraldHarness(sink: nil)
        let port = Self.port()
        try harness.appendConfig("api:\n  listen: 127.0.0.1:\(port)\n")
        let daemon = try Daemon(harness, port: port, environment: ["PULSE_SERVER": pulse.address], keeping: harness)
        let (_, row) = try daemon.post("/v1/announcements", #"{"text": "\#(Self.longText)", "priority": "high"}"#)
        let id = try #require(row["id"] as? String)
        try SoundServer.waitFor("Herald speaking") {
            try SoundServer.readStreams(environment: ["PULSE_SERVER": pulse.address]).contains { $0.application == "Herald" && !$0.corked }
        }
        return (daemon, id)
    }

    /// Rows of the log, read through the daemon's API.
    static func row(_ daemon: Daemon, _ id: String) throws -> [String: Any] {
        try daemon.get("/v1/announcements/\(id)")
    }

    @Test func serveRunsOnTheBuiltInDefaultsWithNoConfigFileAndAFreshStateFolder() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let state = NSTemporaryDirectory() + "herald-fresh-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        // No HERALD_CONFIG, no --config, the default port, a state folder that does not exist yet.
        let daemon = try Daemon(nil, environment: ["XDG_STATE_HOME": state])
        usleep(2_500_000)
        #expect(daemon.process.isRunning, "serve keeps running on its defaults")
        kill(daemon.process.processIdentifier, SIGHUP)
        usleep(500_000)
        #expect(daemon.process.isRunning, "a SIGHUP with no config file is not fatal")
        let (status, row) = try daemon.post("/v1/announcements?wait=true", #"{"text": "Herald runs on its defaults."}"#)
        #expect(status == 200)
        #expect(row["outcome"] as? String == "played", "\(row)")
        #expect(row["sink"] as? String == SoundServer.sink, "the server's default sink")
        daemon.stop()
        #expect(daemon.process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: state + "/herald/herald.sqlite"))
    }

    @Test func aJournalLeftByKillMinus9IsAppliedAtStartBeforeAnythingPlays() throws {
        let port = Self.port()
        let harness = try HeraldHarness(extraConfig: "api:\n  listen: 127.0.0.1:\(port)\n")
        try SoundServer.setSink(volumes: ["20%"], muted: true)
        let (music, musicIndex) = try harness.startMusic(volume: SafeguardedPlayTests.percent80)
        defer { kill(music.processIdentifier, SIGKILL) }
        let before = try SoundServer.readSink()
        var daemon = try Daemon(harness, port: port)
        let (_, row) = try daemon.post("/v1/announcements", #"{"text": "\#(Self.longText)", "priority": "high"}"#)
        let id = try #require(row["id"] as? String)
        try SoundServer.waitFor("Herald speaking") { try HeraldHarness.heraldIsPlaying() }
        daemon.crash()
        let left = try SoundServer.readSink()
        #expect(left != before, "the crash left the sink changed: \(left)")
        #expect(try HeraldHarness.musicMuted(musicIndex) == true, "and the music silenced")

        daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        // The announcement the crash cut off is said again; its row shows the sink as it was
        // before the crash, so the journal was applied before it played.
        try SoundServer.waitFor("the cut-off announcement said again", timeout: 30) {
            try Self.row(daemon, id)["outcome"] as? String == "played"
        }
        let replayed = try Self.row(daemon, id)
        #expect(replayed["muted_before"] as? Bool == true, "\(replayed)")
        #expect((replayed["volume_before"] as? [Int])?.first == Int(before.volumes[0]), "\(replayed)")
        #expect(try SoundServer.readSink() == before, "the sink exactly as before the crash")
        #expect(try HeraldHarness.musicMuted(musicIndex) == false)
        #expect(try HeraldHarness.musicVolumes(musicIndex) == [SafeguardedPlayTests.percent80])
    }

    @Test func withNoSoundServerAtStartItServesAndPlaysOnceOneAppears() throws {
        let pulse = try PrivatePulse(start: false)
        let harness = try HeraldHarness(sink: nil)
        let port = Self.port()
        try harness.appendConfig("api:\n  listen: 127.0.0.1:\(port)\n")
        let daemon = try Daemon(harness, port: port, environment: ["PULSE_SERVER": pulse.address])
        defer { daemon.stop() }
        let (status, row) = try daemon.post("/v1/announcements", #"{"text": "Waiting for a speaker.", "priority": "high"}"#)
        #expect(status == 202)
        let id = try #require(row["id"] as? String)
        usleep(1_000_000)
        let waiting = try daemon.get("/v1/status")["daemon"] as? [String: Any] ?? [:]
        #expect((waiting["sound_server"] as? String)?.hasPrefix("waiting for a sound server") == true, "\(waiting)")
        #expect(waiting["waiting_for"] as? String != nil, "status says what it waits for: \(waiting)")
        #expect(try Self.row(daemon, id)["outcome"] == nil, "waiting, not failed")
        let started = ContinuousClock.now
        try pulse.start()
        try SoundServer.waitFor("the announcement to play once the server is up", timeout: 15) {
            try Self.row(daemon, id)["outcome"] as? String == "played"
        }
        print("figures: with no server at start, played \(ContinuousClock.now - started) after the server started (including the speech)")
        #expect(try Self.row(daemon, id)["sink"] as? String == "herald_private")
    }

    @Test func aSoundServerKilledMidAnnouncementIsReconnectedAndTheAnnouncementSaidAgain() throws {
        let pulse = try PrivatePulse()
        try pulse.pactl(["set-sink-volume", "herald_private", "20%"])
        let (daemon, id) = try Self.speakingDaemon(on: pulse)
        defer { daemon.stop() }
        pulse.kill()
        usleep(300_000)
        #expect(try Self.row(daemon, id)["outcome"] == nil, "not logged played: it was cut off")
        let restarted = ContinuousClock.now
        try pulse.start()
        try SoundServer.waitFor("the cut-off announcement said again", timeout: 30) {
            try Self.row(daemon, id)["outcome"] as? String == "played"
        }
        let (status, next) = try daemon.post("/v1/announcements?wait=true", #"{"text": "Back again.", "priority": "high"}"#)
        #expect(status == 200 && next["outcome"] as? String == "played", "\(next)")
        print("figures: server killed mid-announcement; cut-off one said again and the next played \(ContinuousClock.now - restarted) after the restart")
        let status2 = try daemon.get("/v1/status")
        #expect((status2["sound"] as? [String: Any])?["pending_journal"] as? Bool == false, "no journal left behind: \(status2)")
    }

    @Test func sigtermFadesRestoresAndLeavesTheQueueForTheNextStart() throws {
        let port = Self.port()
        let harness = try HeraldHarness(extraConfig: "api:\n  listen: 127.0.0.1:\(port)\n")
        try SoundServer.setSink(volumes: ["20%"], muted: false)
        let before = try SoundServer.readSink()
        var daemon = try Daemon(harness, port: port)
        var ids: [String] = []
        for index in 1...4 {
            let (_, row) = try daemon.post("/v1/announcements", #"{"text": "Sentence \#(index). \#(Self.longText)"}"#)
            ids.append(try #require(row["id"] as? String))
        }
        try SoundServer.waitFor("Herald speaking") { try HeraldHarness.heraldIsPlaying() }
        let took = daemon.stop()
        #expect(daemon.process.terminationStatus == 0)
        #expect(took < .milliseconds(2500), "exited \(took) after SIGTERM")
        print("figures: SIGTERM with 4 queued sentences: exited 0 after \(took)")
        #expect(try SoundServer.readSink() == before)
        let rows = try harness.history()
        #expect(rows.filter { ids.contains($0["id"] as? String ?? "") }.allSatisfy { $0["outcome"] == nil },
                "none logged: all four wait for the next start")
        daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        try SoundServer.waitFor("the four said after the restart", timeout: 60) {
            try ids.allSatisfy { try Self.row(daemon, $0)["outcome"] as? String == "played" }
        }
    }

    @Test func aReloadAppliesToTheAPIsTokensWithoutARestart() throws {
        let port = Self.port()
        let kept = "kept-token-0123456789abcdef", removed = "removed-token-0123456789abcdef"
        let tokens = { (list: [String]) in "api:\n  listen: 127.0.0.1:\(port)\n  tokens:\n" + list.map { "    \($0): admin\n" }.joined() }
        let harness = try HeraldHarness(extraConfig: tokens([kept, removed]))
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        func status(_ token: String) throws -> Int {
            var request = URLRequest(url: URL(string: daemon.base + "/v1/status")!)
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var code = 0
            URLSession.shared.dataTask(with: request) { _, response, _ in
                code = (response as? HTTPURLResponse)?.statusCode ?? 0
                done.signal()
            }.resume()
            done.wait()
            return code
        }
        #expect(try status(removed) == 200)
        let text = try String(contentsOfFile: harness.configPath, encoding: .utf8)
        try text.replacingOccurrences(of: "    \(removed): admin\n", with: "")
            .write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        try SoundServer.waitFor("the removed token refused", timeout: 5) { try status(removed) == 401 }
        #expect(try status(kept) == 200)
        // A config that does not check out keeps the one running.
        try (text + "\nsafeguard:\n  min_volume: loud\n").write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        usleep(500_000)
        #expect(daemon.process.isRunning)
        #expect(try status(kept) == 200)
        #expect(try status(removed) == 401, "still the last good config")
    }

    @Test func onARaisedSinkTheRadioIsNeverHeardLouderThanBefore() throws {
        let harness = try HeraldHarness()
        try SoundServer.setSink(volumes: ["20%"], muted: false)
        let (music, musicIndex) = try harness.startMusic(volume: SafeguardedPlayTests.percent80)
        defer { kill(music.processIdentifier, SIGKILL) }
        let heardBefore = 0.2 * 0.8
        let clip = try harness.toneFile(seconds: 1.5, name: "announcement")
        let monitor = try MonitorRecording()
        usleep(300_000)
        let musicBefore = monitor.position
        let play = try harness.startPlay(clip)
        // Read the sink and the radio as often as pactl answers while Herald plays. The two are read
        // by separate pactl calls, so a sample counts only when the radio read the same before and
        // after the sink: then both values held at the moment the sink was read.
        var products: [Double] = []
        while play.isRunning {
            guard let radioBefore = try? HeraldHarness.musicVolumes(musicIndex)?.first,
                  let sink = try? SoundServer.readSink(),
                  let radioAfter = try? HeraldHarness.musicVolumes(musicIndex)?.first,
                  radioBefore == radioAfter else { continue }
            products.append(sink.muted ? 0 : Double(sink.volumes[0]) / 65536 * Double(radioAfter) / 65536)
        }
        let end = monitor.position
        usleep(200_000)
        monitor.stop()
        #expect(play.terminationStatus == 0)
        #expect(products.count > 5, "read \(products.count) times while playing")
        #expect(products.allSatisfy { $0 <= heardBefore + 0.0001 }, "heard radio levels \(products.max() ?? 0) > \(heardBefore)")
        // Medians of 21 ms windows: the announcement's own start and end clicks touch every band.
        let levelBefore = monitor.medianLevel(frequency: HeraldHarness.musicTone, from: 0.05, to: musicBefore)
        let levelDuring = monitor.medianLevel(frequency: HeraldHarness.musicTone, from: musicBefore + 0.3, to: end - 0.1)
        #expect(levelDuring <= levelBefore * 0.5, "the radio on the monitor: \(levelDuring) while speaking, \(levelBefore) before")
        print("figures: raised sink, radio heard at most \(String(format: "%.4f", products.max() ?? 0)) (sink x stream) against \(heardBefore) before; monitor 440 Hz \(String(format: "%.5f", levelBefore)) before, at most \(String(format: "%.5f", levelDuring)) while speaking")
        #expect(try HeraldHarness.musicVolumes(musicIndex) == [SafeguardedPlayTests.percent80])
    }

    @Test func twoStreamsAppearingTogetherAreBothDuckedAndBothRestored() throws {
        let port = Self.port()
        let harness = try HeraldHarness(extraConfig: "api:\n  listen: 127.0.0.1:\(port)\n")
        try SoundServer.setSink(volumes: ["80%"], muted: false)
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        _ = try daemon.post("/v1/announcements", #"{"text": "\#(Self.longText)"}"#)
        try SoundServer.waitFor("Herald speaking") { try HeraldHarness.heraldIsPlaying() }
        let tone = try harness.toneFile(frequency: 300, seconds: 20, name: "tv")
        let before = Set(try SoundServer.readStreams().map(\.index))
        let players = try (0..<2).map { _ in
            try SoundServer.start("paplay", ["-d", SoundServer.sink, "--volume=52429", "--property=application.name=test-pair", tone])
        }
        defer { for player in players { kill(player.processIdentifier, SIGKILL) } }
        var pair: [Int] = []
        try SoundServer.waitFor("both streams ducked") {
            let streams = try SoundServer.readStreams().filter { !before.contains($0.index) && $0.application == "test-pair" }
            pair = streams.map(\.index)
            return streams.count == 2 && streams.allSatisfy { ($0.volumes.first ?? .max) < 52429 / 2 }
        }
        try SoundServer.waitFor("Herald to finish", timeout: 20) { !(try HeraldHarness.heraldIsPlaying()) }
        try SoundServer.waitFor("both streams restored") {
            try SoundServer.readStreams().filter { pair.contains($0.index) }.allSatisfy { $0.volumes == [52429] }
        }
    }

    @Test func criticalIsHeardOnAMutedSinkUnderRespectAndNormalIsNot() throws {
        let port = Self.port()
        let harness = try HeraldHarness(extraConfig: "api:\n  listen: 127.0.0.1:\(port)\nsafeguard:\n  mute: respect\n")
        try SoundServer.setSink(volumes: ["50%"], muted: true)
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let (_, normal) = try daemon.post("/v1/announcements?wait=true", #"{"text": "Just a reminder.", "priority": "normal"}"#)
        #expect(normal["outcome"] as? String == "suppressed_muted", "\(normal)")
        let monitor = try MonitorRecording()
        let (_, critical) = try daemon.post("/v1/announcements?wait=true", #"{"text": "Water leak in the kitchen.", "priority": "critical"}"#)
        usleep(200_000)
        monitor.stop()
        #expect(critical["outcome"] as? String == "played", "\(critical)")
        #expect(monitor.soundSpan() != nil, "the leak alarm was heard on the monitor")
        #expect(try SoundServer.readSink().muted, "muted again after")
    }

    @Test func aDefaultSinkChangedMidAnnouncementIsSaidAgainOnTheNewOne() throws {
        let pulse = try PrivatePulse(sinks: ["speaker_a", "speaker_b"])
        try pulse.pactl(["set-default-sink", "speaker_a"])
        try pulse.pactl(["set-sink-mute", "speaker_b", "1"])
        let (daemon, id) = try Self.speakingDaemon(on: pulse)
        defer { daemon.stop() }
        try pulse.pactl(["set-default-sink", "speaker_b"])
        try SoundServer.waitFor("the announcement said on speaker_b", timeout: 30) {
            try Self.row(daemon, id)["outcome"] as? String == "played"
        }
        let played = try Self.row(daemon, id)
        #expect(played["sink"] as? String == "speaker_b", "the log names the sink that was heard: \(played)")
        #expect(played["muted_before"] as? Bool == true)
        #expect(try pulse.readSink("speaker_b").muted, "speaker_b muted again after")
    }

    @Test func aSinkUnloadedMidAnnouncementIsSaidAgainOnTheOneLeft() throws {
        let pulse = try PrivatePulse(sinks: ["speaker_a", "speaker_b"])
        try pulse.pactl(["set-default-sink", "speaker_a"])
        let (daemon, id) = try Self.speakingDaemon(on: pulse)
        defer { daemon.stop() }
        let modules = try pulse.pactl(["list", "short", "modules"])
        let module = try #require(modules.split(separator: "\n").first { $0.contains("sink_name=speaker_a") }?
            .split(separator: "\t").first)
        try pulse.pactl(["unload-module", String(module)])
        try SoundServer.waitFor("the announcement said on speaker_b", timeout: 30) {
            try Self.row(daemon, id)["outcome"] as? String == "played"
        }
        #expect(try Self.row(daemon, id)["sink"] as? String == "speaker_b")
    }
}
}

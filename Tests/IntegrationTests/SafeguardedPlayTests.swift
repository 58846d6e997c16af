import Foundation
import Testing

/// `herald play` against a real PulseAudio server with a null sink: what pactl reports and what
/// the sink's monitor carried. Serialized: the tests share the one test sink.
extension OnTheTestSink {
@Suite final class SafeguardedPlayTests {
    static let percent20: UInt32 = 13107, percent70: UInt32 = 45875, percent80: UInt32 = 52429

    init() throws {
        try SoundServer.require()
    }

    @Test func aMutedQuietSinkIsHeardAtTheTargetAndRestoredExactly() throws {
        let harness = try HeraldHarness()
        try SoundServer.setSink(volumes: ["20%"], muted: true)
        let (music, musicIndex) = try harness.startMusic(volume: Self.percent80)
        defer { kill(music.processIdentifier, SIGKILL) }
        let before = try SoundServer.readSink()
        let clip = try harness.toneFile(seconds: 1.5, name: "announcement")

        let monitor = try MonitorRecording()
        usleep(300_000)
        let launchOffset = monitor.position
        let launched = ContinuousClock.now
        let play = try harness.startPlay(clip)
        try SoundServer.waitFor("Herald's stream") { try HeraldHarness.heraldIsPlaying() }
        let during = try SoundServer.readSink()
        let musicDuring = try HeraldHarness.musicVolumes(musicIndex)
        let musicMutedDuring = try HeraldHarness.musicMuted(musicIndex)
        play.waitUntilExit()
        let endOffset = monitor.position
        let runTime = ContinuousClock.now - launched
        usleep(300_000)
        monitor.stop()

        #expect(play.terminationStatus == 0)
        #expect(during == .init(volumes: [Self.percent70, Self.percent70], muted: false))
        #expect(musicMutedDuring == true, "nothing of the music was heard before: it stays silent")
        #expect(musicDuring == [Self.percent80], "its own volume untouched")
        #expect(try HeraldHarness.musicMuted(musicIndex) == false, "unmuted again after")
        #expect(try SoundServer.readSink() == before, "sink exactly as before")
        #expect(try HeraldHarness.musicVolumes(musicIndex) == [Self.percent80], "music exactly as before")

        // Heard at 70%: the clip's 0.5 times PulseAudio's cubic 0.7^3.
        let level = monitor.heardLevel(frequency: HeraldHarness.announcementTone)
        #expect(abs(level - 0.5 * 0.343) < 0.03, "announcement level on the monitor \(level)")
        let heard = monitor.heardDuration(frequency: HeraldHarness.announcementTone)
        #expect(abs(heard - 1.5) < 0.15, "heard for \(heard) s")
        let firstHeard = try #require(monitor.firstHeard(frequency: HeraldHarness.announcementTone))
        let lastHeard = try #require(monitor.lastHeard(frequency: HeraldHarness.announcementTone))
        let musicWhileSpeaking = monitor.medianLevel(frequency: HeraldHarness.musicTone, from: firstHeard, to: lastHeard)
        #expect(musicWhileSpeaking < 0.00001, "the music on a muted sink is not heard while Herald speaks: \(musicWhileSpeaking)")
        let peakBefore = monitor.peak(from: 0, to: launchOffset)
        let peakAfter = monitor.peak(from: endOffset + 0.05, to: monitor.duration)
        #expect(peakBefore == 0 && peakAfter == 0, "muted before and after: \(peakBefore), \(peakAfter)")
        #expect(firstHeard > launchOffset && lastHeard < endOffset + 0.1, "heard between launch and exit")
        let onset = Int((firstHeard - launchOffset) * 1000)
        print("figures: monitor peak before \(peakBefore), during \(monitor.peak(from: firstHeard, to: lastHeard)), after \(peakAfter); tone level \(String(format: "%.4f", level)); heard \(String(format: "%.2f", heard)) s; herald play to first sound \(onset) ms (process start, ducking ramp included; 21 ms windows); herald play ran \(runTime) for a 1.5 s clip")

        let row = try #require(try harness.history().first)
        #expect(row["outcome"] as? String == "played")
        #expect(row["muted_before"] as? Bool == true)
        #expect(row["volume_before"] as? [Int] == [Int(Self.percent20), Int(Self.percent20)])
        #expect(row["volume_played"] as? [Int] == [Int(Self.percent70), Int(Self.percent70)])
        #expect(row["streams_ducked"] as? Int == 1)
        #expect(row["clip_source"] as? String == "file")
    }

    @Test func duckingIsHeardOnTheMonitor() throws {
        let harness = try HeraldHarness()
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let (music, _) = try harness.startMusic(volume: Self.percent80)
        defer { kill(music.processIdentifier, SIGKILL) }
        let clip = try harness.toneFile(seconds: 1.5, name: "announcement")
        let monitor = try MonitorRecording()
        usleep(500_000)
        let launchOffset = monitor.position
        let play = try harness.startPlay(clip)
        play.waitUntilExit()
        let endOffset = monitor.position
        usleep(500_000)
        monitor.stop()

        let music440 = monitor.toneLevels(frequency: HeraldHarness.musicTone)
        let window = 1024.0 / Double(MonitorRecording.rate)
        func median(_ from: Double, _ to: Double) -> Double {
            let lower = max(0, Int(from / window)), upper = min(music440.count, Int(to / window))
            guard lower < upper else { return .nan }
            let slice = music440[lower..<upper].sorted()
            return slice.isEmpty ? 0 : slice[slice.count / 2]
        }
        let before = median(0.1, launchOffset)
        let announcementStart = try #require(monitor.firstHeard(frequency: HeraldHarness.announcementTone))
        let during = median(announcementStart + 0.2, announcementStart + 1.2)
        let after = median(endOffset + 0.2, monitor.duration - 0.05)
        print("figures: music level before \(before), ducked \(during), after \(after)")
        // 60% sink, 80% music: 0.5 * 0.8^3 * 0.6^3; ducked to 30% of it: cubic, so 0.027 of that.
        #expect(abs(before - 0.5 * 0.512 * 0.216) < 0.01)
        #expect(during < before * 0.1, "music ducked while speaking")
        #expect(abs(after - before) < before * 0.1, "music back afterwards")
    }

    @Test func unbalancedChannelsComeBackExactly() throws {
        let harness = try HeraldHarness()
        try SoundServer.setSink(volumes: ["30%", "10%"], muted: false)
        let before = try SoundServer.readSink()
        let clip = try harness.toneFile(seconds: 0.8, name: "announcement")
        let play = try harness.startPlay(clip)
        try SoundServer.waitFor("Herald's stream") { try HeraldHarness.heraldIsPlaying() }
        let during = try SoundServer.readSink()
        play.waitUntilExit()
        #expect(play.terminationStatus == 0)
        #expect(during.volumes.first == Self.percent70)
        let ratio = Double(during.volumes[1]) / Double(during.volumes[0])
        #expect(abs(ratio - Double(before.volumes[1]) / Double(before.volumes[0])) < 0.001, "balance kept")
        #expect(try SoundServer.readSink() == before)
    }

    @Test func aVolumeTheUserSetsMidPlayIsKept() throws {
        let harness = try HeraldHarness()
        try SoundServer.setSink(volumes: ["20%"], muted: true)
        let clip = try harness.toneFile(seconds: 2, name: "announcement")
        let play = try harness.startPlay(clip)
        try SoundServer.waitFor("the raise") { try SoundServer.readSink().volumes.first == Self.percent70 }
        try SoundServer.run("pactl", ["set-sink-volume", SoundServer.sink, "40%"])
        play.waitUntilExit()
        #expect(play.terminationStatus == 0)
        let after = try SoundServer.readSink()
        #expect(after.volumes == [26214, 26214], "the user's 40% stays")
        #expect(after.muted, "the mute Herald lifted is put back")
    }

    @Test func killNineMidPlayThenRestoreRestoresExactly() throws {
        let harness = try HeraldHarness()
        try SoundServer.setSink(volumes: ["30%", "10%"], muted: true)
        let (music, musicIndex) = try harness.startMusic(volume: Self.percent80)
        defer { kill(music.processIdentifier, SIGKILL) }
        let before = try SoundServer.readSink()
        let clip = try harness.toneFile(seconds: 5, name: "long")
        let play = try harness.startPlay(clip)
        try SoundServer.waitFor("the raise") { try SoundServer.readSink().volumes.first == Self.percent70 }
        try SoundServer.waitFor("the music silenced") { try HeraldHarness.musicMuted(musicIndex) == true }
        kill(play.processIdentifier, SIGKILL)
        play.waitUntilExit()
        #expect(try SoundServer.readSink() != before, "the kill left the sink raised")

        let status = try harness.herald(["status", "--json"])
        #expect(status.stdout.contains("\"pending_journal\" : true"))
        let restore = try harness.herald(["restore"])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stdout.hasPrefix("restored \(SoundServer.sink)"))
        #expect(try SoundServer.readSink() == before)
        #expect(try HeraldHarness.musicVolumes(musicIndex) == [Self.percent80])
        #expect(try HeraldHarness.musicMuted(musicIndex) == false)
        #expect(try harness.herald(["restore"]).stdout.hasPrefix("nothing to restore"))
    }

    @Test func theNextPlayRestoresAJournalLeftByAKill() throws {
        let harness = try HeraldHarness()
        try SoundServer.setSink(volumes: ["25%"], muted: false)
        let before = try SoundServer.readSink()
        let long = try harness.toneFile(seconds: 5, name: "long")
        let play = try harness.startPlay(long)
        try SoundServer.waitFor("the raise") { try SoundServer.readSink().volumes.first == Self.percent70 }
        kill(play.processIdentifier, SIGKILL)
        play.waitUntilExit()
        let next = try harness.herald(["play", try harness.toneFile(seconds: 0.3, name: "short")])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try SoundServer.readSink() == before)
    }

    @Test func respectLeavesAMutedSinkSilentAndUnchanged() throws {
        let harness = try HeraldHarness(extraConfig: "safeguard:\n  mute: respect\n")
        try SoundServer.setSink(volumes: ["20%"], muted: true)
        let before = try SoundServer.readSink()
        let result = try harness.herald(["play", try harness.toneFile(seconds: 0.5, name: "a")])
        #expect(result.status == 0)
        #expect(result.stdout.contains("not played"))
        #expect(try SoundServer.readSink() == before)
        #expect(try harness.history().first?["outcome"] as? String == "suppressed_muted")
    }

    @Test func statusShowsTheSinkAndWhatTheSafeguardWouldDo() throws {
        let harness = try HeraldHarness()
        try SoundServer.setSink(volumes: ["20%"], muted: true)
        let (music, _) = try harness.startMusic(volume: Self.percent80)
        defer { kill(music.processIdentifier, SIGKILL) }
        let result = try harness.herald(["status", "--json"])
        #expect(result.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let sink = try #require(report["sink"] as? [String: Any])
        #expect(sink["name"] as? String == SoundServer.sink)
        #expect(sink["muted"] as? Bool == true)
        #expect(sink["volume_percent"] as? [Int] == [20, 20])
        let wouldDo = report["safeguard_would_do"] as? [String] ?? []
        #expect(wouldDo == ["unmute the sink", "raise the sink 20% -> 70%",
                            "keep test-music silent (mute it: nothing of it was heard)"])
    }

    @Test func ctrlCFadesOutRestoresAndLogsInterrupted() throws {
        let harness = try HeraldHarness()
        try SoundServer.setSink(volumes: ["20%"], muted: true)
        let before = try SoundServer.readSink()
        let play = try harness.startPlay(try harness.toneFile(seconds: 6, name: "long"))
        try SoundServer.waitFor("Herald's stream") { try HeraldHarness.heraldIsPlaying() }
        let interrupted = ContinuousClock.now
        kill(play.processIdentifier, SIGINT)
        play.waitUntilExit()
        let stopTime = ContinuousClock.now - interrupted
        #expect(play.terminationStatus == 0)
        #expect(stopTime < .seconds(2), "stopped in \(stopTime), not after the 6 s clip")
        #expect(try SoundServer.readSink() == before)
        #expect(try harness.history().first?["outcome"] as? String == "interrupted")
    }

    @Test func twoPlaysAtOnceTakeTurnsAndRestoreOnce() throws {
        let harness = try HeraldHarness()
        try SoundServer.setSink(volumes: ["20%"], muted: true)
        let before = try SoundServer.readSink()
        let clip = try harness.toneFile(seconds: 1, name: "one")
        let monitor = try MonitorRecording()
        let first = try harness.startPlay(clip)
        let second = try harness.startPlay(clip)
        first.waitUntilExit()
        second.waitUntilExit()
        usleep(200_000)
        monitor.stop()
        #expect(first.terminationStatus == 0 && second.terminationStatus == 0)
        // Overlapping clips would be heard for about 1 s, louder; taking turns, for 2 s at one level.
        let heard = monitor.heardDuration(frequency: HeraldHarness.announcementTone)
        #expect(abs(heard - 2) < 0.2, "heard for \(heard) s")
        #expect(abs(monitor.heardLevel(frequency: HeraldHarness.announcementTone) - 0.5 * 0.343) < 0.03)
        #expect(try SoundServer.readSink() == before)
        #expect(try harness.history().compactMap { $0["outcome"] as? String } == ["played", "played"])
    }
}
}

extension OnTheTestSink.SafeguardedPlayTests {
    /// Ctrl-C at any moment from opening the safeguard to mid-play: a clean exit and an exact restore.
    @Test func ctrlCAtAnyMomentRestores() throws {
        let harness = try HeraldHarness()
        try SoundServer.setSink(volumes: ["20%"], muted: true)
        let before = try SoundServer.readSink()
        let long = try harness.toneFile(seconds: 4, name: "long")
        for delay in [100_000, 150_000, 220_000, 300_000, 450_000] as [UInt32] {
            let play = try harness.startPlay(long)
            usleep(delay)
            kill(play.processIdentifier, SIGINT)
            play.waitUntilExit()
            #expect(play.terminationStatus == 0 && play.terminationReason == .exit, "after \(delay / 1000) ms")
            #expect(try SoundServer.readSink() == before, "after \(delay / 1000) ms")
        }
    }
}

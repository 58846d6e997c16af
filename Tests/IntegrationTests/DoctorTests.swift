import Foundation
import Testing

/// `herald doctor` as a person runs it, on the private server's test sink: healthy, muted, no
/// server at all, and a voice pack missing a word.
extension OnTheTestSink {
@Suite final class DoctorTests {
    init() throws {
        try SoundServer.require()
    }

    static let doctorTone = 880.0

    /// `herald doctor --json`: exit status and the checks by name (the last one of a name).
    func doctor(_ harness: HeraldHarness, _ extra: [String] = [], environment: [String: String] = [:]) throws
        -> (status: Int32, heard: Bool, checks: [String: [String: Any]], text: String) {
        let result = try harness.herald(["doctor", "--json"] + extra, environment: environment)
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        var checks: [String: [String: Any]] = [:]
        for check in json["checks"] as? [[String: Any]] ?? [] { checks[check["check"] as? String ?? "?"] = check }
        return (result.status, json["speech_would_be_heard"] as? Bool ?? false, checks, result.stdout + result.stderr)
    }

    @Test func aHealthySetupIsOkAndItsToneIsHeard() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let harness = try HeraldHarness()
        let monitor = try MonitorRecording()
        let report = try doctor(harness)
        usleep(200_000)
        monitor.stop()
        #expect(report.status == 0, "\(report.text)")
        #expect(report.heard)
        for name in ["config", "sound server", "sink", "volume", "tone", "lock", "database", "disk", "speech", "voice pack en", "time zone"] {
            #expect(report.checks[name]?["level"] as? String == "ok", "\(name): \(report.checks[name] ?? [:])")
        }
        #expect(report.checks["daemon"]?["level"] as? String == "warning", "no daemon runs in this test")
        #expect(monitor.heardDuration(frequency: Self.doctorTone, floor: 0.01) > 0.2, "the doctor's tone on the monitor")
        let human = try harness.herald(["doctor", "--no-tone"])
        #expect(human.status == 0)
        #expect(human.stdout.contains("ok       sound server"), "\(human.stdout)")
        #expect(human.stdout.hasSuffix("speech would be heard (1 warning)\n"), "\(human.stdout)")
    }

    /// Issue 42: a config holding tokens, and a signing secret's file, that other accounts can
    /// read are named by `config check` (still OK), `doctor` and `serve`, with the chmod; once
    /// closed, doctor says so.
    @Test func secretsOtherAccountsCanReadAreNamedWithTheChmod() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let harness = try HeraldHarness(extraConfig: """
            api:
              tokens:
                till-token-0000000001: announce
              signing_secrets:
                till_file: till.secret
            """)
        let secret = harness.folder + "/till.secret"
        try "5d41402abc4b2a76b9719d911017c592\n".write(toFile: secret, atomically: true, encoding: .utf8)
        chmod(secret, 0o644)
        chmod(harness.configPath, 0o640)
        let check = try harness.herald(["config", "check", harness.configPath])
        #expect(check.status == 0, "a warning, not an error: \(check.stdout) \(check.stderr)")
        #expect(check.stdout.contains("warning: \(harness.configPath) (mode 0640) holds api.tokens"), "\(check.stdout)")
        #expect(check.stdout.contains("warning: \(secret) (mode 0644) holds api.signing_secrets.till_file, and every account"), "\(check.stdout)")
        #expect(check.stdout.contains("chmod 600 \(secret)"), "\(check.stdout)")
        let report = try doctor(harness, ["--no-tone"])
        let secrets = try #require(report.checks["secrets"], "\(report.text)")
        #expect(secrets["level"] as? String == "warning", "\(secrets)")
        #expect((secrets["action"] as? String) == "chmod 600 \(harness.configPath) \(secret)", "\(secrets)")
        chmod(secret, 0o600)
        chmod(harness.configPath, 0o600)
        #expect(try doctor(harness, ["--no-tone"]).checks["secrets"]?["level"] as? String == "ok")
        #expect(!(try harness.herald(["config", "check", harness.configPath]).stdout.contains("warning:")))
    }

    @Test func aMutedSinkIsAWarningWhenHeraldUnmutesItAndAProblemWhenItRespectsTheMute() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: true)
        defer { try? SoundServer.setSink(volumes: ["60%"], muted: false) }
        let harness = try HeraldHarness()
        var report = try doctor(harness)
        #expect(report.status == 0, "\(report.text)")
        #expect(report.checks["mute"]?["level"] as? String == "warning")
        #expect((report.checks["mute"]?["detail"] as? String ?? "").contains("does not play low"), "\(report.checks["mute"] ?? [:])")
        #expect(report.checks["tone"]?["level"] as? String == "ok", "unmuted for the tone")
        #expect(try SoundServer.readSink().muted, "and muted again after it")

        try harness.appendConfig("safeguard:\n  mute: respect")
        report = try doctor(harness)
        #expect(report.status == 1, "\(report.text)")
        #expect(!report.heard)
        #expect(report.checks["mute"]?["level"] as? String == "problem")
        #expect((report.checks["mute"]?["action"] as? String ?? "").contains("pactl set-sink-mute \(SoundServer.sink) 0"))
        #expect(report.checks["tone"]?["level"] as? String == "problem")
        #expect(try SoundServer.readSink().muted)
    }

    @Test func noSoundServerIsAProblemThatSaysWhatToStart() throws {
        let harness = try HeraldHarness()
        let report = try doctor(harness, environment: ["PULSE_SERVER": "unix:/nonexistent/herald-doctor/native"])
        #expect(report.status == 1, "\(report.text)")
        let server = try #require(report.checks["sound server"], "\(report.text)")
        #expect(server["level"] as? String == "problem")
        #expect((server["action"] as? String ?? "").contains("pulseaudio --start"))
        #expect(report.checks["tone"] == nil, "nothing to play on")
        #expect(report.checks["database"]?["level"] as? String == "ok", "the other checks still run")
    }

    @Test func aVoicePackMissingAWordIsNamedWithTheFileAndTheFix() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let harness = try HeraldHarness()
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sounds/voices").standardized.path
        let packs = harness.folder + "/voices"
        try FileManager.default.copyItem(atPath: shipped, toPath: packs)
        try FileManager.default.removeItem(atPath: packs + "/en/seven.flac")
        try harness.appendConfig("speech:\n  packs: \(packs)")
        let report = try doctor(harness, ["--no-tone"])
        #expect(report.status == 0, "still heard: the amount is synthesized. \(report.text)")
        let pack = try #require(report.checks["voice pack en"])
        #expect(pack["level"] as? String == "warning")
        #expect((pack["detail"] as? String ?? "").contains("'seven' (seven.flac)"), "\(pack)")
        #expect((pack["action"] as? String ?? "").contains("herald pack build en"))
        #expect(report.checks["voice pack zh"]?["level"] as? String == "ok")
    }

    /// speech.language es: its pack is looked for too (not only en and zh), built with
    /// `herald pack build es`, then found short of a word.
    @Test func thePackOfSpeechLanguageIsCheckedWhateverTheLanguage() throws {
        let harness = try HeraldHarness()
        let packs = harness.folder + "/voices"
        try harness.appendConfig("speech:\n  packs: \(packs)\n  language: es\n  currency: MXN")
        var report = try doctor(harness, ["--no-tone"])
        let none = try #require(report.checks["voice pack es"], "\(report.text)")
        #expect(none["level"] as? String == "warning" && (none["action"] as? String ?? "").contains("herald pack build es"), "\(none)")

        let build = try harness.herald(["pack", "build", "es"])
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        report = try doctor(harness, ["--no-tone"])
        let built = try #require(report.checks["voice pack es"])
        #expect(built["level"] as? String == "ok" && (built["detail"] as? String ?? "").contains("words"), "\(built)")

        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: packs + "/es/manifest.json"))) as? [String: Any]
        let clips = try #require(manifest?["clips"] as? [String: String])
        let word = try #require(clips.keys.first { $0 == "veinte" } ?? clips.keys.sorted().first)
        try FileManager.default.removeItem(atPath: packs + "/es/" + clips[word]!)
        report = try doctor(harness, ["--no-tone"])
        let short = try #require(report.checks["voice pack es"])
        #expect(short["level"] as? String == "warning" && (short["detail"] as? String ?? "").contains("'\(word)'"), "\(short)")
    }
}
}

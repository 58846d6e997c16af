import Foundation
import Testing

/// Bad input and faults: a one-line error naming the thing, a non-zero exit, the sink untouched,
/// and a `failed` row where a row makes sense.
extension OnTheTestSink {
@Suite final class BadInputTests {
    init() throws {
        try SoundServer.require()
        try SoundServer.setSink(volumes: ["20%"], muted: true)
    }

    /// Runs `herald ARGS` and checks the failure shape; returns standard error.
    func expectFailure(_ harness: HeraldHarness, _ arguments: [String], environment: [String: String] = [:],
                       mentions: String) throws -> String {
        let before = try SoundServer.readSink()
        let result = try harness.herald(arguments, environment: environment)
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n").filter { !$0.contains(" error herald:") }
        #expect(lines.count == 1, "one line: \(result.stderr)")
        #expect(result.stderr.contains(mentions), "\(result.stderr)")
        #expect(try SoundServer.readSink() == before, "the sink is untouched")
        return result.stderr
    }

    @Test func aMissingFile() throws {
        let harness = try HeraldHarness()
        _ = try expectFailure(harness, ["play", "/nonexistent/ding.wav"], mentions: "/nonexistent/ding.wav: no such file")
        let row = try #require(try harness.history().first)
        #expect(row["outcome"] as? String == "failed")
        #expect((row["error"] as? String)?.contains("no such file") == true)
    }

    @Test func aFileLibsndfileCannotDecode() throws {
        let harness = try HeraldHarness()
        let path = harness.folder + "/notes.wav"
        try "shopping list".write(toFile: path, atomically: true, encoding: .utf8)
        _ = try expectFailure(harness, ["play", path], mentions: "not a sound file libsndfile can decode")
        #expect(try harness.history().first?["outcome"] as? String == "failed")
    }

    @Test func aConfiguredSinkThatDoesNotExist() throws {
        let harness = try HeraldHarness()
        let config = try String(contentsOfFile: harness.configPath, encoding: .utf8)
            .replacingOccurrences(of: "sink: \(SoundServer.sink)", with: "sink: no_such_sink")
        try config.write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        let tone = try harness.toneFile(seconds: 0.3, name: "a")
        _ = try expectFailure(harness, ["play", tone], mentions: "no sink named 'no_such_sink'")
        #expect(try harness.history().first?["outcome"] as? String == "failed")
    }

    @Test func noServer() throws {
        let harness = try HeraldHarness()
        let tone = try harness.toneFile(seconds: 0.3, name: "a")
        _ = try expectFailure(harness, ["play", tone], environment: ["PULSE_SERVER": "unix:/nonexistent/native"],
                              mentions: "no PulseAudio server reachable")
        #expect(try harness.history().first?["outcome"] as? String == "failed")
    }

    @Test func anInvalidConfig() throws {
        let harness = try HeraldHarness(extraConfig: "safeguard:\n  max_volume: 250%\n")
        let tone = try harness.toneFile(seconds: 0.3, name: "a")
        let stderr = try expectFailure(harness, ["play", tone], mentions: "safeguard.max_volume: 250% is out of range")
        #expect(stderr.contains("herald.yaml:"))
    }
}
}

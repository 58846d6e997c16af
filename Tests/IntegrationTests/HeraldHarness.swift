import Foundation
import HeraldCore
import SoundFile

/// A temporary Herald setup for one test: a config file pointing at the test sink, its own
/// SQLite file, tone files to play, and the built `herald` binary.
final class HeraldHarness {
    let folder: String
    let configPath: String
    let databasePath: String
    static let announcementTone = 1000.0
    static let musicTone = 440.0

    /// The `herald` executable: `HERALD_BIN`, else the debug build beside these tests.
    static var binary: String {
        if let path = SoundServer.environment["HERALD_BIN"] { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../.build/debug/herald").standardized.path
    }

    /// `sink`: the sink the config names; nil leaves it out (the server's default sink).
    init(extraConfig: String = "", sink: String? = SoundServer.sink) throws {
        folder = NSTemporaryDirectory() + "herald-it-\(UUID().uuidString)"
        // 0700, as Herald makes its state folder: `herald doctor` warns about one others can read.
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        configPath = folder + "/herald.yaml"
        databasePath = folder + "/herald.sqlite"
        try """
            \(sink.map { "sink: \($0)" } ?? "")
            database:
              path: \(databasePath)
            \(extraConfig)
            """.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// A harness whose daemon listens on a random loopback port, and that port.
    static func listening(_ extra: String = "") throws -> (HeraldHarness, Int) {
        let port = OnTheTestSink.DaemonTests.port()
        return (try HeraldHarness(extraConfig: "api:\n  listen: 127.0.0.1:\(port)\n\(extra)"), port)
    }

    /// Adds top-level YAML to the config file.
    func appendConfig(_ yaml: String) throws {
        let text = try String(contentsOfFile: configPath, encoding: .utf8)
        try (text + "\n" + yaml).write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// A mono tone file at half scale.
    func toneFile(frequency: Double = announcementTone, seconds: Double, name: String) throws -> String {
        let rate = 44_100
        let samples = (0..<Int(seconds * Double(rate))).map {
            Float(0.5 * sin(2 * Double.pi * frequency * Double($0) / Double(rate)))
        }
        let path = "\(folder)/\(name).wav"
        try SoundFileEncoder.write(Clip(sampleRate: rate, channelCount: 1, samples: samples), to: path, format: .wav)
        return path
    }

    /// Runs `herald ARGS` with this config (through HERALD_CONFIG) to completion.
    @discardableResult
    func herald(_ arguments: [String], environment: [String: String] = [:]) throws
        -> (status: Int32, stdout: String, stderr: String) {
        try SoundServer.run(Self.binary, arguments, environment: ["HERALD_CONFIG": configPath].merging(environment) { $1 })
    }

    /// Starts `herald play FILE --config ...` without waiting.
    func startPlay(_ file: String) throws -> Process {
        try SoundServer.start(Self.binary, ["play", file, "--config", configPath])
    }

    /// The log rows, newest first.
    func history() throws -> [[String: Any]] {
        let output = try herald(["history", "--json", "--limit", "100"]).stdout
        return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
    }

    /// A "radio": a 30 s tone played by paplay at `volume` (raw) on the test sink. Returns the
    /// process and its sink-input index once the server shows it.
    func startMusic(volume: UInt32) throws -> (Process, Int) {
        let file = try toneFile(frequency: Self.musicTone, seconds: 30, name: "music-\(UUID().uuidString)")
        let before = Set(try SoundServer.readStreams().map(\.index))
        let process = try SoundServer.start("paplay", [
            "-d", SoundServer.sink, "--volume=\(volume)", "--property=application.name=test-music", file,
        ])
        var index = -1
        try SoundServer.waitFor("the music stream") {
            index = try SoundServer.readStreams().first { !before.contains($0.index) && $0.application == "test-music" }?.index ?? -1
            return index >= 0
        }
        return (process, index)
    }

    static func musicVolumes(_ index: Int) throws -> [UInt32]? {
        try SoundServer.readStreams().first { $0.index == index }?.volumes
    }

    static func musicMuted(_ index: Int) throws -> Bool? {
        try SoundServer.readStreams().first { $0.index == index }?.muted
    }

    static func heraldIsPlaying() throws -> Bool {
        try SoundServer.readStreams().contains { $0.application == "Herald" && !$0.corked }
    }
}

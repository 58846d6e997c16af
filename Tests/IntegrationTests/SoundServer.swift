import Foundation
import Testing

/// Every suite that plays on the one test sink nests here, so none runs beside another.
@Suite(.serialized, .enabled(if: SoundServer.shouldRun, "needs the private PulseAudio server of scripts/test.sh"))
enum OnTheTestSink {}

/// The private PulseAudio server that `scripts/test.sh` starts for these tests, and the tools
/// (pactl, paplay, parec) that look at it from outside Herald.
enum SoundServer {
    static let environment = ProcessInfo.processInfo.environment
    /// The null sink's name, exported by scripts/test.sh.
    static let sink = environment["HERALD_TEST_SINK"] ?? ""
    static var isConfigured: Bool { !sink.isEmpty && environment["PULSE_SERVER"] != nil }
    /// Under CI a missing server must fail the tests, never skip them.
    static var shouldRun: Bool { isConfigured || environment["CI"] == "true" }

    /// Fails the running test when the server is not there (only reached under CI).
    static func require() throws {
        guard isConfigured else {
            throw ServerMissing()
        }
    }

    struct ServerMissing: Error, CustomStringConvertible {
        var description: String {
            "no private PulseAudio server: run the tests with scripts/test.sh (it exports PULSE_SERVER and HERALD_TEST_SINK)"
        }
    }

    /// Raw per-channel volumes and mute of the test sink, as pactl reports them.
    struct SinkReading: Equatable, CustomStringConvertible {
        var volumes: [UInt32]
        var muted: Bool
        var description: String { "\(volumes)\(muted ? " muted" : "")" }
    }

    static func readSink() throws -> SinkReading { try readSink(named: Self.sink) }

    /// The same for any sink, on the server `environment` names.
    static func readSink(named name: String, environment extra: [String: String] = [:]) throws -> SinkReading {
        let json = try run("pactl", ["-f", "json", "list", "sinks"], environment: extra).stdout
        let sinks = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] ?? []
        guard let sink = sinks.first(where: { $0["name"] as? String == name }),
              let volume = sink["volume"] as? [String: [String: Any]] else {
            throw CommandFailed(description: "sink \(name) not in pactl output")
        }
        let order = ["front-left", "front-right", "mono"]
        let values = order.compactMap { volume[$0]?["value"] as? Int }.map(UInt32.init)
        return SinkReading(volumes: values, muted: sink["mute"] as? Bool ?? false)
    }

    /// Sink-inputs as (index, application name, raw volumes, mute, sink, corked, client's pid). A
    /// daemon keeps a corked Herald stream between announcements (its warm stream): playing means
    /// not corked.
    static func readStreams(environment extra: [String: String] = [:]) throws
        -> [(index: Int, application: String, volumes: [UInt32], muted: Bool, sink: Int, corked: Bool, pid: Int)] {
        let json = try run("pactl", ["-f", "json", "list", "sink-inputs"], environment: extra).stdout
        let inputs = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] ?? []
        return inputs.map { input in
            let properties = input["properties"] as? [String: Any] ?? [:]
            let volume = input["volume"] as? [String: [String: Any]] ?? [:]
            let values = ["front-left", "front-right", "mono"].compactMap { volume[$0]?["value"] as? Int }
            return (input["index"] as? Int ?? -1, properties["application.name"] as? String ?? "",
                    values.map(UInt32.init), input["mute"] as? Bool ?? false, input["sink"] as? Int ?? -1,
                    input["corked"] as? Bool ?? false,
                    Int(properties["application.process.id"] as? String ?? "") ?? -1)
        }
    }

    static func setSink(volumes: [String], muted: Bool) throws {
        try retryingTurnedAway { _ = try run("pactl", ["set-sink-volume", sink] + volumes) }
        try retryingTurnedAway { _ = try run("pactl", ["set-sink-mute", sink, muted ? "1" : "0"]) }
    }

    /// PulseAudio turns clients away past 64 at once ("Connection terminated"), which the parallel
    /// suites can reach for a moment as they start: the test's own pactl tries again, 5 times.
    static func retryingTurnedAway(_ body: () throws -> Void) throws {
        for attempt in 1...5 {
            do { return try body() } catch let error as CommandFailed where attempt < 5 && error.description.contains("Connection") {
                usleep(200_000)
            }
        }
    }

    struct CommandFailed: Error, CustomStringConvertible { var description: String }

    /// Runs a program to completion.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], environment extra: [String: String] = [:])
        throws -> (status: Int32, stdout: String, stderr: String) {
        let process = try start(program, arguments, environment: extra)
        let stdout = (process.standardOutput as! Pipe).fileHandleForReading.readDataToEndOfFile()
        let stderr = (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let result = (process.terminationStatus, String(decoding: stdout, as: UTF8.self),
                      String(decoding: stderr, as: UTF8.self))
        if program == "pactl" && result.0 != 0 {
            throw CommandFailed(description: "pactl \(arguments.joined(separator: " ")): \(result.2)")
        }
        return result
    }

    /// Starts a program found on PATH (or by absolute path) with pipes for its output.
    static func start(_ program: String, _ arguments: [String], environment extra: [String: String] = [:],
                      output: FileHandle? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program.hasPrefix("/") ? program : "/usr/bin/env")
        process.arguments = program.hasPrefix("/") ? arguments : [program] + arguments
        process.environment = environment.merging(extra) { _, new in new }
        if let output {
            process.standardOutput = output
        } else {
            process.standardOutput = Pipe()
        }
        process.standardError = Pipe()
        try process.run()
        return process
    }

    /// Polls `condition` every 20 ms until it holds or `timeout` passes.
    static func waitFor(_ what: String, timeout: Double = 5, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(20_000)
        }
        throw CommandFailed(description: "timed out waiting for \(what)")
    }
}

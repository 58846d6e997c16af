import Foundation
import HeraldApp
import HeraldConfig
import HeraldCore
import Logging
import PulseAudio
import SoundFile
import Speech

/// The benchmark's setup: a config pointing at the private sink, a renderer, the probe.
struct Bench {
    let sink: String
    let heraldBinary: String
    let folder: String
    let configPath: String
    let context: HeraldContext
    let renderer: SpeechRenderer
    let connection: PulseConnection
    let probe: MonitorProbe
    let runs: Int

    static func make(runs: Int) async throws -> Bench {
        let environment = ProcessInfo.processInfo.environment
        guard let sink = environment["HERALD_BENCH_SINK"], let binary = environment["HERALD_BIN"] else {
            throw BenchError("run me through scripts/bench.sh (it sets HERALD_BENCH_SINK, HERALD_BIN and a private PULSE_SERVER)")
        }
        let folder = NSTemporaryDirectory() + "herald-bench-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let configPath = folder + "/herald.yaml"
        try "sink: \(sink)\ndatabase:\n  path: \(folder)/herald.sqlite\ncache:\n  path: \(folder)/cache\n"
            .write(toFile: configPath, atomically: true, encoding: .utf8)
        let configuration = try await HeraldConfiguration.load(file: configPath, stateDirectory: folder)
        let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
        let context = try HeraldContext(configuration: configuration, logger: logger)
        let connection = try await PulseConnection(applicationName: "Herald", logger: logger)
        // Loud enough and unmuted: these figures are about speed, not about the raise.
        try await connection.setSinkVolume(named: sink, to: ChannelVolumes(uniform: Volume(percent: 80), count: 2))
        try await connection.setSinkMute(named: sink, to: false)
        let probe = try await MonitorProbe(connection: connection, sinkName: sink)
        return Bench(sink: sink, heraldBinary: binary, folder: folder, configPath: configPath, context: context,
                     renderer: context.makeRenderer(), connection: connection,
                     probe: probe, runs: runs)
    }

    /// Median milliseconds from `start` to the first sound on the monitor, over `runs` runs;
    /// `before` sets each run up, untimed.
    func onset(_ label: String, before: (Int) async throws -> Void = { _ in },
               _ start: @escaping (Int) async throws -> Task<Void, any Error>) async throws -> Double {
        var samples: [Double] = []
        for run in 0..<runs {
            try await before(run)
            try await probe.waitForSilence()
            probe.arm()
            let began = ContinuousClock.now
            let work = try await start(run)
            let heard = try await probe.heard()
            try await work.value
            samples.append((heard - began).inSeconds * 1000)
        }
        return Self.report(label, samples)
    }

    /// Prints a row: its median, min and max in milliseconds; returns the median.
    @discardableResult
    static func report(_ label: String, _ samples: [Double]) -> Double {
        let median = samples.sorted()[samples.count / 2]
        print(String(format: "  %-44@ median %7.1f ms  (min %.1f, max %.1f, n=%d)", label as NSString, median,
                     samples.min() ?? 0, samples.max() ?? 0, samples.count))
        return median
    }

    /// The cached sentence as a WAV file, for paplay.
    var wavPath: String { folder + "/cached.wav" }

    /// A sentence never said before in this run.
    static func uncached(_ run: Int) -> String { "The delivery for order \(run * 7 + 11) arrives in \(run + 3) minutes." }

    /// Writes the bench's config with `api.listen` on `port` as `<name>.yaml`; returns its path.
    func config(port: Int, name: String) throws -> String {
        let path = folder + "/\(name).yaml"
        let text = try String(contentsOfFile: configPath, encoding: .utf8) + "api:\n  listen: 127.0.0.1:\(port)\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Median milliseconds a program takes from start to exit, over `runs` runs.
    func wallTime(_ label: String, _ program: String, _ arguments: [String],
                  environment: [String: String] = [:]) async throws -> Double {
        var samples: [Double] = []
        for _ in 0..<runs {
            let began = ContinuousClock.now
            try await spawn(program, arguments, environment: environment).value
            samples.append((ContinuousClock.now - began).inSeconds * 1000)
        }
        return Self.report(label, samples)
    }

    /// Sets the bench sink's volume (all channels) and mute.
    func setSink(percent: Int, muted: Bool) async throws {
        try await connection.setSinkVolume(named: sink, to: ChannelVolumes(uniform: Volume(percent: Double(percent)), count: 2))
        try await connection.setSinkMute(named: sink, to: muted)
    }

    /// Stops the probe (a recording monitor keeps the sink awake) and waits until
    /// `module-suspend-on-idle` has suspended the sink.
    func waitUntilSuspended() async throws {
        probe.rest()
        for _ in 0..<250 {
            if try await connection.sink(named: sink).state == .suspended { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw BenchError("sink \(sink) did not suspend within 5 s")
    }

    /// Starts a program in the background, its output discarded.
    static func start(_ program: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Runs pactl on the bench's server and returns what it printed; throws when it fails.
    static func pactl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("pactl \(arguments.joined(separator: " ")) failed") }
        return text
    }

    /// Starts a program; the task ends when it exits (non-zero is an error).
    func spawn(_ program: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> Task<Void, any Error> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        // Told of the exit at once (a polling loop would add up to its period to every figure).
        let (exited, exit) = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exit.finish() }
        try process.run()
        return Task.detached {
            for await _ in exited {}
            guard process.terminationStatus == 0 else {
                let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                throw BenchError("\(program) \(arguments.joined(separator: " ")) failed: \(message)")
            }
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Largest resident set, in MB, of this process or of its waited-for children.
func peakRSS(children: Bool) -> Double {
    var usage = rusage()
    getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

/// What `herald say` is held against: the same clip through paplay, and espeak-ng piped to
/// paplay, both on the idle sink.
struct CLIBaselines {
    var paplay: Double
    var espeakPipe: Double

    static func measure(_ bench: Bench) async throws -> CLIBaselines {
        let paplay = try await bench.onset("baseline: paplay (same cached clip)") { _ in
            try bench.spawn("/usr/bin/paplay", ["-d", bench.sink, bench.wavPath])
        }
        let pipe = try await bench.onset("baseline: espeak-ng --stdout | paplay") { run in
            try bench.spawn("/bin/sh", ["-c", "espeak-ng --stdout \"$1\" | paplay -d \(bench.sink)", "sh",
                                        Bench.uncached(run) + " shell"])
        }
        return CLIBaselines(paplay: paplay, espeakPipe: pipe)
    }
}

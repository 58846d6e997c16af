import Foundation
import HeraldApp
import HeraldConfig
import HeraldCore
import Logging
import PulseAudio
import SoundFile
import Speech

/// The benchmark's setup: a config pointing at the private sink, a resident announcer, the probe.
struct Bench {
    let sink: String
    let heraldBinary: String
    let folder: String
    let configPath: String
    let context: HeraldContext
    let announcer: Announcer
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
                     announcer: Announcer(context: context, sound: connection), connection: connection,
                     probe: probe, runs: runs)
    }

    /// Median milliseconds from `start` to the first sound on the monitor, over `runs` runs.
    func onset(_ label: String, _ start: @escaping (Int) async throws -> Task<Void, any Error>) async throws -> Double {
        var samples: [Double] = []
        for run in 0..<runs {
            try await probe.waitForSilence()
            probe.arm()
            let began = ContinuousClock.now
            let work = try await start(run)
            let heard = try await probe.heard()
            try await work.value
            samples.append((heard - began).inSeconds * 1000)
        }
        let median = samples.sorted()[samples.count / 2]
        print(String(format: "  %-44@ median %7.1f ms  (min %.1f, max %.1f, n=%d)", label as NSString, median,
                     samples.min() ?? 0, samples.max() ?? 0, samples.count))
        return median
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
        try process.run()
        return Task.detached {
            while process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
            guard process.terminationStatus == 0 else {
                let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                throw BenchError("\(program) \(arguments.joined(separator: " ")) failed: \(message)")
            }
        }
    }

    /// Starts an in-process announcement.
    func announce(_ body: AnnouncementRequest.Body) -> Task<Void, any Error> {
        let announcer = self.announcer
        return Task { _ = try await announcer.announce(AnnouncementRequest(body: body, priority: .high)) }
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

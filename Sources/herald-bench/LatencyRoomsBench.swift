import Foundation
import HeraldCore
import HeraldTesting
import PulseAudio

/// Rooms whose sinks' latencies differ for real (DESIGN.md "Rooms"): a local remap sink, a tunnel
/// sink to this same server (the network protocol and the far sink's buffer, which PulseAudio
/// reports, about 100 ms), and a null sink carried on by a 150 ms loopback (a delay the sink does
/// not report: the room's latency offset). Every listener is a channel of one 4-channel null sink,
/// recorded once, so the spread is measured on one clock, with no reader's jitter in it.
struct LatencyRoomsBench {
    let bench: Bench
    /// Runs of each spread figure.
    let spreadRuns = 20
    let tag = "\(getpid())"

    func run() async throws {
        let server = ProcessInfo.processInfo.environment["PULSE_SERVER"] ?? ""
        let bed = LatencyTestBed(tag: "bench_\(tag)")
        let (ears, near, far, looped) = (bed.ears, bed.near, bed.far, bed.looped)
        var modules: [String] = []
        defer { for module in modules.reversed() { _ = try? Bench.pactl(["unload-module", module]) } }
        for module in bed.modules(server: server) {
            modules.append(try Bench.pactl(["load-module"] + module).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        for _ in 0..<100 where !(try Bench.pactl(["list", "short", "sinks"])).contains(far) { try await Task.sleep(for: .milliseconds(100)) }
        for sink in [near, far, looped] { _ = try Bench.pactl(["set-sink-volume", sink, "80%"]) }
        let sinks = [near, far, looped], clip = RoomsBench.tone()
        let recordingArguments = ["-d", "\(ears).monitor", "--raw", "--format=float32le", "--rate=48000", "--channels=4",
                                  "--channel-map=\(LatencyTestBed.parecChannelMap)", "--latency-msec=10"]
        func aligned(_ offsets: [String: Duration]) async throws -> [Double?] {
            try await Self.firstSounds(recordingArguments) {
                _ = await bench.connection.play(.clip(clip), onSinks: sinks, mediaRole: "event", latencyOffsets: offsets)
            }
        }
        // Untimed: the tunnel's far stream and the loopback settle over the first plays.
        for _ in 0..<3 { _ = try await aligned([:]) }
        print("rooms on three latency kinds: a local sink, a tunnel sink (latency reported), a 150 ms loopback (not reported);")
        print("  each listener one channel of one null sink, one recording; spread = last room's first sample - first room's, n=\(spreadRuns)")
        // The loopback's delay beyond what its sink reports, found as an installer would with a
        // microphone: how much later than the local room it is heard with no offset.
        var late: [Double] = []
        for _ in 0..<5 {
            let heard = try await aligned([:])
            if let near = heard[0], let looped = heard[2] { late.append(looped - near) }
        }
        guard !late.isEmpty else { throw BenchError("the loopback room was never heard") }
        let offset = Duration.milliseconds(Int(late.sorted()[late.count / 2].rounded()))
        print(String(format: "  the loopback is heard %.1f ms after the local room with no offset: latency_offset %d ms", late.sorted()[late.count / 2], offset.inMilliseconds))
        let herald = try await spreads("Herald (aligned on reported latency + offset)", sinks: sinks) {
            try await aligned([looped: offset])
        }
        let together = try await spreads("baseline: three plays started together", sinks: sinks) {
            try await Self.firstSounds(recordingArguments) {
                await withTaskGroup(of: Void.self) { group in
                    for sink in sinks { group.addTask { _ = try? await bench.connection.play(.clip(clip), onSink: sink, mediaRole: "event") } }
                }
            }
        }
        print(String(format: "spread, aligned / started together: %.2f (aim: aligned under 5 ms)", herald / max(together, 0.001)))
    }

    /// Median spread over `spreadRuns` plays, in ms; prints the row, the worst and the runs.
    private func spreads(_ label: String, sinks: [String], _ play: () async throws -> [Double?]) async throws -> Double {
        var samples: [Double] = []
        for _ in 0..<spreadRuns {
            let heard = try await play().compactMap { $0 }
            // A run whose recording missed a room is left out and said so below.
            if heard.count == sinks.count { samples.append(heard.max()! - heard.min()!) }
        }
        guard !samples.isEmpty else { throw BenchError("\(label): no run heard every room") }
        let median = Bench.report(label, samples)
        print("    runs (\(samples.count) of \(spreadRuns) heard in every room): " + samples.map { String(format: "%.1f", $0) }.joined(separator: " "))
        return median
    }

    /// Records while `play` runs and returns each channel's first sample above -34 dBFS, in ms
    /// from the recording's start.
    static func firstSounds(_ arguments: [String], _ play: () async throws -> Void) async throws -> [Double?] {
        let path = NSTemporaryDirectory() + "herald-bench-ears-\(UUID().uuidString).raw"
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/parec")
        process.arguments = arguments
        process.standardOutput = FileHandle(forWritingAtPath: path)
        try process.run()
        for _ in 0..<200 where ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await play()
        try await Task.sleep(for: .milliseconds(400))
        // SIGKILL: the bench may run with SIGTERM blocked (inherited), and parec writes straight to the file.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let samples = (FileManager.default.contents(atPath: path) ?? Data()).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return (0..<4).map { channel in
            stride(from: channel, to: samples.count, by: 4).first { abs(samples[$0]) > 0.02 }.map { Double($0 / 4) / 48 }
        }
    }
}

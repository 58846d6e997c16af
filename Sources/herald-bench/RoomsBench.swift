import Foundation
import HeraldCore
import PulseAudio

/// Several rooms at once (DESIGN.md "Rooms"): the spread between the rooms' first audible samples
/// on their monitors, Herald's gated start against three plays started together (how group
/// announcements elsewhere fire), and POST to first sample for three rooms against one, in one run.
/// The sinks are running (each monitor is recorded, which keeps its sink awake).
struct RoomsBench {
    let bench: Bench
    /// Runs of each spread figure.
    let spreadRuns = 20

    func run() async throws {
        let others = ["herald_bench_kitchen", "herald_bench_bedroom"]
        var modules: [String] = []
        defer { for module in modules { _ = try? Bench.pactl(["unload-module", module]) } }
        for sink in others {
            modules.append(try Bench.pactl(["load-module", "module-null-sink", "sink_name=\(sink)"])
                .trimmingCharacters(in: .whitespacesAndNewlines))
            try await bench.connection.setSinkVolume(named: sink, to: ChannelVolumes(uniform: Volume(percent: 80), count: 2))
        }
        let sinks = [bench.sink] + others
        var probes = [bench.probe]
        for sink in others { probes.append(try await MonitorProbe(connection: bench.connection, sinkName: sink)) }
        defer { for probe in probes.dropFirst() { probe.close() } }
        let clip = Self.tone()

        // Untimed: the sinks and probes were made just now, and the first play on them was 40 to
        // 90 ms out of step (whichever way it was started); each figure below starts warm.
        _ = await bench.connection.play(.clip(clip), onSinks: sinks, mediaRole: "event")
        print("rooms: three null sinks, running; spread = last room's first audible sample - first room's, n=\(spreadRuns)")
        let gated = try await spread("Herald, one play on three sinks (gated)", probes: probes) {
            _ = await bench.connection.play(.clip(clip), onSinks: sinks, mediaRole: "event")
        }
        let unsynced = try await spread("baseline: three plays started together", probes: probes) {
            await withTaskGroup(of: Void.self) { group in
                for sink in sinks { group.addTask { _ = try? await bench.connection.play(.clip(clip), onSink: sink, mediaRole: "event") } }
            }
        }
        print(String(format: "spread, gated / three plays: %.2f (aim: gated under 5 ms)", gated.median / max(unsynced.median, 0.001)))

        let rooms = """
            rooms:
              counter: {sink: \(bench.sink)}
              kitchen: {sink: \(others[0])}
              bedroom: {sink: \(others[1])}

            """
        let daemon = DaemonBench(bench: bench, extraConfig: rooms)
        let process = try await daemon.startDaemon()
        defer { process.terminate() }
        print("the daemon, POST of the cached 'ding' clip to the last room's first audible sample:")
        let one = try await postOnset("one room (counter)", daemon: daemon, probes: [probes[0]], rooms: #"["counter"]"#)
        let three = try await postOnset("three rooms (all)", daemon: daemon, probes: probes, rooms: #"["all"]"#)
        print(String(format: "three rooms / one room: %.2f (aim: within 1.5)", three / one))
    }

    /// Median and worst spread of `play` over `spreadRuns` runs, in ms.
    private func spread(_ label: String, probes: [MonitorProbe],
                        _ play: @escaping @Sendable () async -> Void) async throws -> (median: Double, worst: Double) {
        var samples: [Double] = []
        for _ in 0..<spreadRuns {
            for probe in probes { try await probe.waitForSilence() }
            for probe in probes { probe.arm() }
            let playing = Task { await play() }
            var heard: [ContinuousClock.Instant] = []
            for probe in probes { heard.append(try await probe.heard()) }
            await playing.value
            samples.append((heard.max()! - heard.min()!).inSeconds * 1000)
        }
        Bench.report(label, samples)
        // In run order: a slow first run (a cold path) reads differently from a random one.
        print("    runs: " + samples.map { String(format: "%.1f", $0) }.joined(separator: " "))
        return (samples.sorted()[samples.count / 2], samples.max() ?? 0)
    }

    /// Median ms from the POST to the first sample of the room heard last, over the bench's runs.
    private func postOnset(_ label: String, daemon: DaemonBench, probes: [MonitorProbe], rooms: String) async throws -> Double {
        var samples: [Double] = []
        for run in 0..<bench.runs {
            for probe in probes { try await probe.waitForSilence() }
            for probe in probes { probe.arm() }
            let began = ContinuousClock.now
            let posted = daemon.post(#"{"clip": "ding", "rooms": \#(rooms), "request_id": "rooms-\#(rooms.count)-\#(run)"}"#)
            var heard: [ContinuousClock.Instant] = []
            for probe in probes { heard.append(try await probe.heard()) }
            try await posted.value
            samples.append((heard.max()! - began).inSeconds * 1000)
        }
        return Bench.report(label, samples)
    }

    /// A 0.3 s tone at half scale, 48 kHz stereo.
    static func tone() -> Clip {
        let rate = 48_000
        var samples: [Float] = []
        for index in 0..<(rate * 3 / 10) {
            let value = Float(0.5 * sin(2 * Double.pi * 660 * Double(index) / Double(rate)))
            samples += [value, value]
        }
        return Clip(sampleRate: rate, channelCount: 2, samples: samples)
    }
}

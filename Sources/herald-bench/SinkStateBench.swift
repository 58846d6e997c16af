import Foundation
import HeraldCore

/// POST to the first audible sample in every sink state (idle, running with a radio, suspended by
/// `module-suspend-on-idle`), unmuted at 80% and muted at 20%, against two references measured in
/// the same state: the scripted baseline (snapshot, unmute, raise, duck, speak, restore) and the
/// floor (a bare libpulse client that uncorks a warm stream). Medians of `bench.runs`.
struct SinkStateBench {
    let daemon: DaemonBench
    let sentence: String
    /// The states measured, in this order.
    var states = State.allCases
    var bench: Bench { daemon.bench }
    /// What the pack composes for 25.30 USD, spoken by espeak-ng in the script's row.
    static let paymentText = "Payment received: twenty-five dollars and thirty cents"

    enum State: String, CaseIterable { case idle, running, suspended }

    struct Row {
        var state: State
        var muted: Bool
        var floor: Double?
        var cached: Double
        var pack: Double
        var script: Double
        var scriptPayment: Double
    }

    /// What a user could script: snapshot, unmute, raise, duck, speak, restore.
    static let script = """
        sink="$1"; text="$2"
        volume=$(pactl get-sink-volume "$sink" | head -1 | awk '{print $5}')
        mute=$(pactl get-sink-mute "$sink" | awk '{print $2}')
        inputs=$(pactl list short sink-inputs | awk '{print $1}')
        for i in $inputs; do pactl set-sink-input-volume "$i" 30%; done
        pactl set-sink-mute "$sink" 0
        pactl set-sink-volume "$sink" 70%
        espeak-ng --stdout "$text" | paplay -d "$sink"
        pactl set-sink-volume "$sink" "$volume"
        [ "$mute" = yes ] && pactl set-sink-mute "$sink" 1
        for i in $inputs; do pactl set-sink-input-volume "$i" 100%; done
        exit 0
        """

    func run() async throws -> [Row] {
        let clip = try await bench.context.clipCache.clip(
            engine: "espeak-ng", request: bench.renderer.request(text: sentence, language: nil, voice: nil))
        guard let clip, clip.channelCount == 1 else { throw BenchError("the cached sentence is not a mono clip") }
        let floor = try BareWarmClient(sink: bench.sink)
        var rows: [Row] = []
        for state in states {
            print("sink \(state.rawValue):")
            var radio: Process?
            var suspendModule: String?
            switch state {
            case .idle: break
            case .running:
                // A silent stream keeps the sink running as a radio would (and is ducked like one).
                radio = try Bench.start("/usr/bin/pacat", ["-d", bench.sink, "--raw", "--format=s16le", "--rate=48000",
                                                           "--channels=2", "/dev/zero"])
                try await Task.sleep(for: .milliseconds(500))
            case .suspended:
                suspendModule = try Bench.pactl(["load-module", "module-suspend-on-idle", "timeout=1"])
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            defer {
                if let radio { kill(radio.processIdentifier, SIGKILL); radio.waitUntilExit() }
                if let suspendModule { _ = try? Bench.pactl(["unload-module", suspendModule]) }
            }
            for muted in [false, true] {
                let setting = muted ? "muted at 20%" : "unmuted at 80%"
                let prepare: (Int) async throws -> Void = { _ in
                    try await bench.setSink(percent: muted ? 20 : 80, muted: muted)
                    if state == .suspended { try await bench.waitUntilSuspended() }
                }
                var floorFigure: Double?
                if !muted {
                    floorFigure = try await bench.onset("floor: bare libpulse, warm stream, \(setting)", before: { run in
                        try floor.prepare(sampleRate: clip.sampleRate)
                        try await prepare(run)
                    }) { _ in
                        floor.speak(clip.samples)
                        return Task { try await Task.sleep(for: .milliseconds(clip.durationMilliseconds + 200)) }
                    }
                    floor.close()
                }
                let cached = try await bench.onset("POST cached sentence, \(setting)", before: prepare) { _ in
                    daemon.post(#"{"text": "\#(sentence)", "priority": "high"}"#)
                }
                let pack = try await bench.onset("POST pack amount 25.30 USD, \(setting)", before: prepare) { _ in
                    daemon.post(#"{"payment": {"amount": "25.30"}, "priority": "high"}"#)
                }
                let script = try await bench.onset("baseline: script, sentence, \(setting)", before: prepare) { _ in
                    try bench.spawn("/bin/sh", ["-c", Self.script, "sh", bench.sink, sentence])
                }
                let scriptPayment = try await bench.onset("baseline: script, payment, \(setting)", before: prepare) { _ in
                    try bench.spawn("/bin/sh", ["-c", Self.script, "sh", bench.sink, Self.paymentText])
                }
                rows.append(Row(state: state, muted: muted, floor: floorFigure, cached: cached, pack: pack,
                                script: script, scriptPayment: scriptPayment))
            }
        }
        try await bench.setSink(percent: 80, muted: false)
        return rows
    }

    /// The table of the issue: each figure against the script (target 10x sooner) and, unmuted,
    /// against the floor once the HTTP round trip `http` is taken off (target within 1.5x).
    static func printTable(_ rows: [Row], http: Double, leadIn: Int) {
        print("")
        print("POST to first audible sample, medians in ms (lead-in for this sink: \(leadIn) ms, not counted):")
        print("| sink | setting | herald cached | herald pack | script | script/cached | script/pack | floor | (cached-http)/floor |")
        print("|---|---|---|---|---|---|---|---|---|")
        func figure(_ value: Double, _ decimals: Int = 1) -> String { String(format: "%.\(decimals)f", value) }
        for row in rows {
            let floor = row.floor.map { figure($0) } ?? "-"
            let againstFloor = row.floor.map { figure(max(0, row.cached - http) / $0, 2) } ?? "-"
            let cells = [row.state.rawValue, row.muted ? "muted 20%" : "80%", figure(row.cached), figure(row.pack),
                         figure(row.script), figure(row.script / row.cached) + "x", figure(row.scriptPayment / row.pack) + "x",
                         floor, againstFloor]
            print("| " + cells.joined(separator: " | ") + " |")
        }
        let worst = rows.map { min($0.script / $0.cached, $0.scriptPayment / $0.pack) }.min() ?? 0
        print(String(format: "HTTP round trip (GET /v1/health): %.2f ms; slowest ratio against the script: %.1fx (target >= 10x)",
                     http, worst))
    }
}

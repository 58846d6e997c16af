import Foundation
import HeraldCore
import SoundFile
import Speech

// Time from a request to the first audible sample on the sink's monitor, Herald against the
// commands a user could script and against a bare libpulse client, in one run on one private
// server. Medians; ratios and tables at the end of each part.

// A write to a child that exited without reading (Piper, a TTS program) fails with EPIPE
// instead of killing the bench.
signal(SIGPIPE, SIG_IGN)
let runs = CommandLine.arguments.firstIndex(of: "--runs").flatMap { Int(CommandLine.arguments[$0 + 1]) } ?? 5
// The fleet console's part needs no sound server: before the sink's setup.
let fleetBench = FleetBench.fromEnvironment(runs: max(runs, 11))
if CommandLine.arguments.contains("--fleet-only") {
    guard let fleetBench else { throw BenchError("--fleet-only: run me through scripts/bench.sh (HERALD_BENCH_PG_PORT, HERALD_BENCH_MQTT_PORT, HERALD_BIN)") }
    try await fleetBench.run()
    exit(0)
}
if CommandLine.arguments.contains("--languages-only") {
    try LanguageBench(rounds: max(runs, 11)).run()
    exit(0)
}
let bench = try await Bench.make(runs: runs)
let sentence = "Your table is ready, please come to the counter."
let renderer = bench.renderer
_ = try await renderer.warm(text: sentence, language: nil, voice: nil)

// The same cached clip as a WAV file, for paplay.
guard let cachedClip = try await bench.context.clipCache.clip(
    engine: "espeak-ng", request: renderer.request(text: sentence, language: nil, voice: nil)) else {
    throw BenchError("the warmed sentence is not in the cache")
}
try SoundFileEncoder.write(cachedClip, to: bench.wavPath, format: .wav)

if CommandLine.arguments.contains("--piper-only"), let piper = PiperBench(bench: bench) {
    try await piper.run()
    exit(0)
}
if CommandLine.arguments.contains("--sink-states-only") {
    // `--sink-state suspended`: that state's rows only (an A/B of one row takes minutes, not eleven).
    var chosen: SinkStateBench.State?
    if let flag = CommandLine.arguments.firstIndex(of: "--sink-state") {
        let name = flag + 1 < CommandLine.arguments.count ? CommandLine.arguments[flag + 1] : ""
        guard let state = SinkStateBench.State(rawValue: name) else {
            throw BenchError("--sink-state '\(name)': say one of \(SinkStateBench.State.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        chosen = state
    }
    try await DaemonBench(bench: bench).run(sentence: sentence, baselines: nil, sinkStatesOnly: true,
                                            states: chosen.map { [$0] } ?? SinkStateBench.State.allCases)
    exit(0)
}
if CommandLine.arguments.contains("--rooms-only") {
    try await RoomsBench(bench: bench).run()
    try await LatencyRoomsBench(bench: bench).run()
    exit(0)
}
print("Herald benchmark: \(runs) runs each, sink \(bench.sink) on a private PulseAudio")
print("the command line with no daemon running (process start included), the sink idle:")
// A port nobody listens on: `herald say` looks for a daemon (socket, then TCP) and plays by itself.
let alone = ["HERALD_CONFIG": try bench.config(port: Int.random(in: 51_000...59_000), name: "alone")]
let cliCached = try await bench.onset("herald say, cached, no daemon") { _ in
    try bench.spawn(bench.heraldBinary, ["say", sentence], environment: alone)
}
let cliUncached = try await bench.onset("herald say, uncached, no daemon") { run in
    try bench.spawn(bench.heraldBinary, ["say", Bench.uncached(run) + " alone"], environment: alone)
}
let cliRSS = peakRSS(children: true)
// Where a CLI run's first milliseconds go: the process start alone (dynamic linking, the Swift
// runtime, Foundation, argument parsing), and the same with the config loaded and the socket probed.
let bareStart = try await bench.wallTime("herald --help (process start only)", bench.heraldBinary, ["--help"])
let configStart = try await bench.wallTime("herald config check (start, config)", bench.heraldBinary, ["config", "check"],
                                           environment: alone)
print(String(format: "process start %.1f ms, with the config loaded %.1f ms", bareStart, configStart))
let baselines = try await CLIBaselines.measure(bench)
print(String(format: "herald say cached / paplay: %.2f (target <= 1); uncached / espeak-ng | paplay: %.2f (target <= 1)",
             cliCached / baselines.paplay, cliUncached / baselines.espeakPipe))

try await DaemonBench(bench: bench).run(sentence: sentence, baselines: baselines)
try await RoomsBench(bench: bench).run()
try await LatencyRoomsBench(bench: bench).run()

// Real-time factor: synthesis time over the audio's length.
let paragraph = String(repeating: "Time to take your blood pressure medication, one tablet with water. ", count: 6)
let synthStart = ContinuousClock.now
let long = try await renderer.synthesizeWhole(renderer.request(text: paragraph, language: nil, voice: nil))
let synthSeconds = (ContinuousClock.now - synthStart).inSeconds
print(String(format: "espeak-ng real-time factor: %.3f (%.2f s of speech in %.3f s)",
             synthSeconds / (Double(long.durationMilliseconds) / 1000), Double(long.durationMilliseconds) / 1000, synthSeconds))
if let piper = PiperBench(bench: bench) { try await piper.run() } else {
    print("Piper: not measured (HERALD_BENCH_PIPER is not set; scripts/bench.sh sets it)")
}
print(String(format: "peak RSS: herald CLI runs %.1f MB; this process %.1f MB", cliRSS, peakRSS(children: false)))
if let fleetBench { try await fleetBench.run() } else {
    print("Fleet console: not measured (HERALD_BENCH_PG_PORT is not set; scripts/bench.sh sets it)")
}
try? FileManager.default.removeItem(atPath: bench.folder)

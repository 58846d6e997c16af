import Foundation
import HeraldCore
import SoundFile
import Speech

// Time from a request to the first audible sample on the sink's monitor, Herald against the
// commands a user could script, in one run on one private server. Medians; ratios at the end.

let runs = CommandLine.arguments.firstIndex(of: "--runs").flatMap { Int(CommandLine.arguments[$0 + 1]) } ?? 9
let bench = try await Bench.make(runs: runs)
let sentence = "Your table is ready, please come to the counter."
let renderer = bench.announcer.renderer
_ = try await renderer.warm(text: sentence, language: nil, voice: nil)

// The same cached clip as a WAV file, for paplay.
guard let cachedClip = try await bench.context.clipCache.clip(
    engine: "espeak-ng", request: renderer.request(text: sentence, language: nil, voice: nil)) else {
    throw BenchError("the warmed sentence is not in the cache")
}
let wav = bench.folder + "/cached.wav"
try SoundFileEncoder.write(cachedClip, to: wav, format: .wav)
func uncached(_ run: Int) -> String { "The delivery for order \(run * 7 + 11) arrives in \(run + 3) minutes." }
let environment = ["HERALD_CONFIG": bench.configPath]

print("Herald benchmark: \(runs) runs each, sink \(bench.sink) on a private PulseAudio")
print("from the command line (process start included), the sink idle:")
let cliCached = try await bench.onset("herald say (cached sentence)") { _ in
    try bench.spawn(bench.heraldBinary, ["say", sentence, "--local"], environment: environment)
}
let cliUncached = try await bench.onset("herald say (uncached sentence)") { run in
    try bench.spawn(bench.heraldBinary, ["say", uncached(run) + " CLI", "--local"], environment: environment)
}
let cliRSS = peakRSS(children: true)
let paplay = try await bench.onset("baseline: paplay (same cached clip)") { _ in
    try bench.spawn("/usr/bin/paplay", ["-d", bench.sink, wav])
}
let espeakPipe = try await bench.onset("baseline: espeak-ng --stdout | paplay") { run in
    try bench.spawn("/bin/sh", ["-c", "espeak-ng --stdout \"$1\" | paplay -d \(bench.sink)", "sh", uncached(run) + " shell"])
}

// A silent stream keeps the sink running, as a radio would (it is ducked like one).
let keepAlive = Process()
keepAlive.executableURL = URL(fileURLWithPath: "/usr/bin/pacat")
keepAlive.arguments = ["-d", bench.sink, "--raw", "--format=s16le", "--rate=48000", "--channels=2", "/dev/zero"]
try keepAlive.run()
try await Task.sleep(for: .milliseconds(500))
print("in-process (a resident announcer with a warm connection), the sink running:")
let inCached = try await bench.onset("cached sentence") { _ in bench.announce(.text(sentence)) }
let inPack = try await bench.onset("pack-composed amount (25.30 USD)") { _ in
    bench.announce(.payment(Amount(minorUnits: 2530, currency: .usd)))
}
let inSynth = try await bench.onset("uncached sentence (streaming espeak-ng)") { run in
    bench.announce(.text(uncached(run) + " in process"))
}
let paplayRunning = try await bench.onset("baseline: paplay (same cached clip)") { _ in
    try bench.spawn("/usr/bin/paplay", ["-d", bench.sink, wav])
}
let cliCachedRunning = try await bench.onset("herald say (cached sentence), CLI") { _ in
    try bench.spawn(bench.heraldBinary, ["say", sentence, "--local"], environment: environment)
}
try await DaemonBench(bench: bench).run(sentence: sentence)
kill(keepAlive.processIdentifier, SIGKILL)

// Real-time factor: synthesis time over the audio's length.
let paragraph = String(repeating: "Time to take your blood pressure medication, one tablet with water. ", count: 6)
let synthStart = ContinuousClock.now
let long = try await renderer.synthesizeWhole(renderer.request(text: paragraph, language: nil, voice: nil))
let synthSeconds = (ContinuousClock.now - synthStart).inSeconds
let realTimeFactor = synthSeconds / (Double(long.durationMilliseconds) / 1000)

print("")
print(String(format: "herald say cached / paplay, idle sink:       %.2f  (target <= 0.5; includes the 150 ms lead-in an idle sink gets)", cliCached / paplay))
print(String(format: "herald say cached / paplay, running sink:   %.2f  (target <= 0.5; no lead-in)", cliCachedRunning / paplayRunning))
print(String(format: "herald say uncached / espeak-ng | paplay:   %.2f  (target <= 0.5)", cliUncached / espeakPipe))
print(String(format: "in-process cached: %.1f ms (target <= 10), pack: %.1f ms (target <= 10), uncached: %.1f ms (target <= 30)",
             inCached, inPack, inSynth))
print(String(format: "in-process cached / paplay on the running sink: %.2f", inCached / paplayRunning))
print(String(format: "espeak-ng real-time factor: %.3f (%.2f s of speech in %.3f s)", realTimeFactor,
             Double(long.durationMilliseconds) / 1000, synthSeconds))
print(String(format: "peak RSS: herald CLI runs %.1f MB; this process (resident announcer + probe) %.1f MB",
             cliRSS, peakRSS(children: false)))
try? FileManager.default.removeItem(atPath: bench.folder)

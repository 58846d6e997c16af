import Foundation
import HeraldCore
import Logging
import Speech

/// The natural voice (issue 13): time to the first audio of a sentence never said before, with
/// Piper resident against espeak-ng in-process and against `python -m piper` started for each
/// sentence; POST to the first audible sample with a Piper daemon; Piper's real-time factor; the
/// daemon's memory with the voice loaded. Needs `HERALD_BENCH_PIPER` (scripts/bench.sh installs
/// the voice there).
struct PiperBench {
    let bench: Bench
    let settings: PiperSettings

    init?(bench: Bench) {
        guard let folder = ProcessInfo.processInfo.environment["HERALD_BENCH_PIPER"], !folder.isEmpty else { return nil }
        self.bench = bench
        settings = PiperSettings(folder: folder).resolved()
    }

    func run() async throws {
        guard let voice = try? PiperVoiceModel.read(modelPath: settings.model) else {
            throw BenchError("no Piper voice in \(settings.folder): run scripts/install-voice.sh \(settings.folder)")
        }
        print("Piper, voice \(voice.name), \(settings.threads) threads; sentences never said before in this run:")
        let quiet = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
        let piper = PiperSynthesizer(settings: settings, logger: quiet)
        defer { piper.stop() }
        let loadStarted = ContinuousClock.now
        await piper.prepare()
        print(String(format: "  Piper process start and model load: %.0f ms (once, at the daemon's start)",
                     (ContinuousClock.now - loadStarted).inSeconds * 1000))
        // The sentences the earlier issue measured have no comma: one clause, said whole either way.
        let resident = try await median("first audio, Piper resident (one clause)") { run in
            let started = ContinuousClock.now
            return try await Self.firstChunk(of: piper.synthesize(request(Self.oneClause(run, "resident"))), since: started)
        }
        let espeak = try await median("first audio, espeak-ng in-process") { run in
            var espeakRequest = request(Self.oneClause(run, "espeak"))
            espeakRequest.voice = "en-us"
            let started = ContinuousClock.now
            return try await Self.firstChunk(of: EspeakSynthesizer.shared.synthesize(espeakRequest), since: started)
        }
        let perSentence = try await median("first audio, python -m piper per sentence") { run in
            try await firstByte(ofPiperCommandSaying: Self.oneClause(run, "command"))
        }
        print(String(format: "  Piper resident / espeak-ng: %.1fx; python -m piper per sentence / Piper resident: %.1fx",
                     resident / espeak, perSentence / resident))

        let whole = PiperSynthesizer(settings: settings, logger: quiet, byClause: false)
        defer { whole.stop() }
        await whole.prepare()
        print("  a sentence of three clauses (\"\(Self.uncachedClauses(0, "Clara"))\"):")
        try await clauseRows(voice: voice, byClause: piper, whole: whole)
        try await firstChunkRows(byClause: piper, whole: whole)
        whole.stop()

        let paragraph = String(repeating: "Time to take your blood pressure medication, one tablet with water. ", count: 6)
        let started = ContinuousClock.now
        let renderer = SpeechRenderer(settings: SpeechSettings(), synthesizer: piper, cache: nil, logger: quiet)
        let clip = try await renderer.synthesizeWhole(SpeechRequest(text: paragraph, language: "en", voice: "", rate: 175, pitch: 50),
                                                      requiring: .piper)
        let seconds = (ContinuousClock.now - started).inSeconds
        print(String(format: "  Piper real-time factor: %.3f (%.2f s of speech in %.2f s)",
                     seconds / (Double(clip.durationMilliseconds) / 1000), Double(clip.durationMilliseconds) / 1000, seconds))

        var daemon = DaemonBench(bench: bench)
        daemon.extraConfig = "speech:\n  engine: piper\n  piper:\n    python: \(settings.python)\n    model: \(settings.model)\n"
        let process = try await daemon.startDaemon()
        defer { kill(process.processIdentifier, SIGTERM); process.waitUntilExit() }
        let onset = try await bench.onset("POST to first audible, Piper daemon (idle sink, one clause)") { run in
            daemon.post(#"{"text": "\#(Self.oneClause(run, "Dana"))"}"#)
        }
        let clauseOnset = try await bench.onset("POST to first audible, Piper daemon (idle sink, three clauses)") { run in
            daemon.post(#"{"text": "\#(Self.uncachedClauses(run, "Dana"))"}"#)
        }
        // A payment as the Piper voice says it without a pack: its first clause is short.
        let paymentOnset = try await bench.onset("POST to first audible, Piper daemon (idle sink, a payment's sentence)") { run in
            daemon.post(#"{"text": "Payment received: \#(run * 7 + 11) dollars and \#(run + 3) cents."}"#)
        }
        let herald = DaemonBench.memory(of: process.processIdentifier)
        let child = Self.child(of: process.processIdentifier).map(DaemonBench.memory(of:))
        print(String(format: "  POST to first audible with Piper: %.1f ms (a payment's sentence), %.1f ms (three clauses), %.1f ms (one clause); daemon RSS %.1f MB (RssAnon %.1f MB) + Piper process RSS %.1f MB (RssAnon %.1f MB)",
                     paymentOnset, clauseOnset, onset, herald.current, herald.anonymous, child?.current ?? 0, child?.anonymous ?? 0))
    }

    /// Median milliseconds of `measure` over the bench's runs.
    func median(_ label: String, _ measure: (Int) async throws -> Double) async throws -> Double {
        var samples: [Double] = []
        for run in 0..<bench.runs { samples.append(try await measure(run)) }
        return Bench.report(label, samples)
    }

    /// Milliseconds from `started` (before the synthesize call) to the first chunk; drains the rest.
    static func firstChunk(of speech: SynthesizedSpeech, since started: ContinuousClock.Instant) async throws -> Double {
        var first: Double?
        for try await _ in speech.chunks where first == nil { first = (ContinuousClock.now - started).inSeconds * 1000 }
        return first ?? .nan
    }

    /// Milliseconds from starting `python -m piper --output-raw` to its first byte of audio.
    func firstByte(ofPiperCommandSaying text: String) async throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: settings.python)
        process.arguments = ["-m", "piper", "-m", settings.model, "--output-raw"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let started = ContinuousClock.now
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data((text + "\n").utf8))
        try input.fileHandleForWriting.close()
        let first = try output.fileHandleForReading.read(upToCount: 1)
        let elapsed = (ContinuousClock.now - started).inSeconds * 1000
        _ = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard first?.isEmpty == false, process.terminationStatus == 0 else { throw BenchError("python -m piper wrote no audio") }
        return elapsed
    }

    /// The first child process of `pid` (the daemon's Piper process).
    static func child(of pid: Int32) -> Int32? {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }.first { candidate in
            let stat = (try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8)) ?? ""
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            return fields.count > 1 && Int32(fields[1]) == pid
        }
    }
}

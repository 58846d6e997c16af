import Foundation
import HeraldCore
import Speech

/// Piper clause by clause against whole sentences (issue 30), on the same run: time to the first
/// audio, and the gaps a listener hears between clauses.
extension PiperBench {
    /// A sentence never said before in this run, whose first clause is short, as a payment's or
    /// a reminder's is; `tag` (a word) keeps each use apart, inside the first clause so it adds none.
    static func uncachedClauses(_ run: Int, _ tag: String) -> String {
        "Order \(run * 7 + 11) for \(tag) is ready, please collect it at the counter; thank you for waiting \(run + 3) minutes."
    }

    /// A sentence never said before in this run with no punctuation inside: one clause.
    static func oneClause(_ run: Int, _ tag: String) -> String {
        "The delivery for order \(run * 7 + 11) for \(tag) arrives in \(run + 3) minutes."
    }

    /// One clause's audio as it arrived.
    struct ArrivedChunk {
        var arrivedMilliseconds: Double
        var samples: [Float]
    }

    /// Every chunk of `speech` with its arrival time since `started`.
    static func chunks(of speech: SynthesizedSpeech, since started: ContinuousClock.Instant) async throws -> [ArrivedChunk] {
        var chunks: [ArrivedChunk] = []
        for try await samples in speech.chunks {
            chunks.append(ArrivedChunk(arrivedMilliseconds: (ContinuousClock.now - started).inSeconds * 1000, samples: samples))
        }
        return chunks
    }

    /// The longest gap a listener hears between two clauses: the silence at the end of one, any
    /// wait for the next one's render (played from the first chunk's arrival), and the silence
    /// at the start of the next. Also the longest of the waits alone.
    static func longestGap(_ chunks: [ArrivedChunk], sampleRate: Int) -> (gap: Double, wait: Double) {
        let perMillisecond = Double(sampleRate) / 1000
        var playsUntil = chunks.first?.arrivedMilliseconds ?? 0
        var gap = 0.0, wait = 0.0
        for (index, chunk) in chunks.enumerated() {
            let waited = max(0, chunk.arrivedMilliseconds - playsUntil)
            if index > 0 {
                let trailing = Double(silentSamples(chunks[index - 1].samples.reversed())) / perMillisecond
                let leading = Double(silentSamples(chunk.samples)) / perMillisecond
                gap = max(gap, trailing + waited + leading)
                wait = max(wait, waited)
            }
            playsUntil = max(playsUntil, chunk.arrivedMilliseconds) + Double(chunk.samples.count) / perMillisecond
        }
        return (gap, wait)
    }

    /// The longest silence inside `samples` (between its first and last sound): the pauses the
    /// voice makes itself when it renders a sentence whole.
    static func longestInnerSilence(_ samples: [Float], sampleRate: Int) -> Double {
        guard let first = samples.firstIndex(where: { abs($0) > silence }),
              let last = samples.lastIndex(where: { abs($0) > silence }) else { return 0 }
        var longest = 0, run = 0
        for sample in samples[first...last] {
            run = abs(sample) > silence ? 0 : run + 1
            longest = max(longest, run)
        }
        return Double(longest) / (Double(sampleRate) / 1000)
    }

    /// Below this a sample is silence (about -40 dBFS).
    static let silence: Float = 0.01

    static func silentSamples<S: Sequence<Float>>(_ samples: S) -> Int {
        var count = 0
        for sample in samples {
            if abs(sample) > silence { break }
            count += 1
        }
        return count
    }

    /// First audio clause by clause and whole, and the gaps between clauses, over the bench's runs.
    func clauseRows(voice: PiperVoiceModel, byClause: PiperSynthesizer, whole: PiperSynthesizer) async throws {
        var firstByClause: [Double] = [], firstWhole: [Double] = [], gaps: [Double] = [], waits: [Double] = []
        var pauses: [Double] = []
        for run in 0..<bench.runs {
            var started = ContinuousClock.now
            let clauses = try await Self.chunks(of: byClause.synthesize(request(Self.uncachedClauses(run, "Clara"))), since: started)
            firstByClause.append(clauses.first?.arrivedMilliseconds ?? .nan)
            let (gap, wait) = Self.longestGap(clauses, sampleRate: voice.sampleRate)
            gaps.append(gap)
            waits.append(wait)
            started = ContinuousClock.now
            let sentence = try await Self.chunks(of: whole.synthesize(request(Self.uncachedClauses(run, "Walter"))), since: started)
            firstWhole.append(sentence.first?.arrivedMilliseconds ?? .nan)
            pauses.append(Self.longestInnerSilence(sentence.flatMap(\.samples), sampleRate: voice.sampleRate))
        }
        let clause = Bench.report("first audio, Piper clause by clause", firstByClause)
        let sentence = Bench.report("first audio, Piper whole sentence", firstWhole)
        print(String(format: "  whole sentence / clause by clause: %.1fx", sentence / clause))
        Bench.report("longest gap between clauses (heard)", gaps)
        Bench.report("  of which waiting for the next render", waits)
        Bench.report("longest pause inside a whole render", pauses)
    }

    /// The first word of any sentence (issue 48): a long first clause, none at all, a question;
    /// and each one's length said in chunks against said whole (the goal: within 10%).
    func firstChunkRows(byClause: PiperSynthesizer, whole: PiperSynthesizer) async throws {
        let kinds: [(name: String, text: (Int) -> String)] = [
            ("a long first clause", { "Order \($0 * 7 + 11) for Martha and her sister is ready at the counter, thank you." }),
            ("no punctuation inside", { Self.oneClause($0, "Dana") }),
            ("a question", { "Is order \($0 * 7 + 11) for Peter ready yet? Yes!" }),
        ]
        for kind in kinds {
            var first: [Double] = [], length: [Double] = []
            for run in 0..<bench.runs {
                let text = kind.text(run)
                let chunks = try await Self.chunks(of: byClause.synthesize(request(text)), since: .now)
                first.append(chunks.first?.arrivedMilliseconds ?? .nan)
                let said = try await Self.chunks(of: whole.synthesize(request(text)), since: .now)
                length.append(100 * Double(chunks.map(\.samples.count).reduce(0, +)) / Double(max(1, said.map(\.samples.count).reduce(0, +))))
            }
            Bench.report("first audio, \(kind.name), clause by clause", first)
            let sorted = length.sorted()
            print(String(format: "  %-44@ median %7.1f %%   (min %.1f, max %.1f, n=%d)", "  its length in chunks, of said whole" as NSString,
                         sorted[sorted.count / 2], sorted.first ?? 0, sorted.last ?? 0, sorted.count))
        }
    }

    /// An English request for `text` in the default voice at the normal rate.
    func request(_ text: String) -> SpeechRequest {
        SpeechRequest(text: text, language: "en", voice: "", rate: 175, pitch: 50)
    }
}

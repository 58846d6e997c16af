import Foundation
import HeraldCore
import Logging
import Synchronization

/// The natural voice: Piper kept resident in a process of its own, fed one clause at a time
/// (`clauses(in:)`), each clause's audio streamed as it arrives while the rest renders, so the
/// first word waits for the first clause, not the whole sentence. espeak-ng says whatever Piper
/// cannot: a language its model does not speak, anything asked while it restarts, the clauses not
/// yet said when it dies or hangs half-way. The process is restarted with a backoff (1 s, doubling
/// to 60 s).
public final class PiperSynthesizer: Synthesizer {
    public let clipSource = ClipSource.piper
    public let settings: PiperSettings
    let fallback: any Synthesizer
    let logger: Logger

    private enum Resident {
        case notStarted
        case starting(Task<PiperProcess, any Error>)
        case running(PiperProcess)
        /// Waiting out the backoff after a failure; a task starts it again.
        case resting
        case stopped
    }

    private struct State {
        var resident = Resident.notStarted
        /// 1 s doubling up to a minute between restarts; from 1 s again once Piper has spoken.
        var restarts = Backoff(initial: .seconds(1), maximum: .seconds(60))
        /// Set once the first start is over, whether it succeeded or failed: later starts are
        /// restarts, which nobody waits for.
        var firstStartOver = false
    }

    private let state = Mutex(State())

    /// False renders each sentence whole, as before clauses: the benchmark's baseline.
    let byClause: Bool

    public init(settings: PiperSettings, fallback: any Synthesizer = EspeakSynthesizer.shared, logger: Logger,
                byClause: Bool = true) {
        self.settings = settings.resolved()
        self.fallback = fallback
        self.logger = logger
        self.byClause = byClause
    }

    /// `piper:` and the default model's hash: clips of a replaced model are never replayed.
    public var engineName: String { "piper:" + PiperVoiceModel.hash(of: settings.model) }

    /// `piper:` and the hash of the model `voice` names (a language's own voice, a named voice);
    /// with the voice's name when it names none Herald can find (nothing is said in it: never the
    /// default's key).
    public func engineName(voice: String) -> String {
        guard !voice.isEmpty else { return engineName }
        guard let model = try? model(named: voice) else { return "piper:" + voice }
        return "piper:" + PiperVoiceModel.hash(of: model.modelPath)
    }

    /// The pid of the resident process, when it runs.
    public var residentPID: Int32? {
        state.withLock { if case .running(let process) = $0.resident, process.pid > 0 { process.pid } else { nil } }
    }

    public func prepare() async {
        _ = await resident(waiting: true)
    }

    /// Stops the resident process for good (a config reload chose other settings).
    public func stop() {
        let process = state.withLock { state -> PiperProcess? in
            defer { state.resident = .stopped }
            if case .running(let process) = state.resident { return process }
            if case .starting(let task) = state.resident { task.cancel() }
            return nil
        }
        process?.stop()
    }

    public func synthesize(_ request: SpeechRequest) async throws -> SynthesizedSpeech {
        guard !request.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw SpeechError.emptyText }
        let voice = try model(named: request.voice)
        guard voice.languageFamily == SpeechNames.baseLanguage( request.language) else {
            // Mandarin and every other language the model does not speak: espeak-ng, by design.
            var espeak = request
            espeak.voice = EspeakSynthesizer.defaultVoice(language: request.language)
            let speech = try await fallback.synthesize(espeak)
            return SynthesizedSpeech(format: speech.format, chunks: speech.chunks) { .synth }
        }
        let format = AudioFormat(sampleRate: voice.sampleRate, channelCount: 1)
        let pieces = byClause ? Self.clauses(in: request.text) : Self.sentences(in: request.text)
        // A Mandarin clause in another language's sentence: this model cannot say it, espeak-ng can.
        let mandarin = pieces.map { voice.languageFamily != "zh" && Self.isMandarin($0) }
        let spokenBy = Mutex(ClipSource.piper)
        let (stream, continuation) = AsyncThrowingStream<[Float], any Error>.makeStream()
        let fallback = self.fallback
        /// espeak-ng says `text` in `language`, at Piper's format.
        @Sendable func espeak(_ text: String, language: String) async throws {
            spokenBy.withLock { $0 = .synth }
            var part = request
            part.text = text
            part.language = language
            part.voice = EspeakSynthesizer.defaultVoice(language: language)
            let speech = try await fallback.synthesize(part)
            for try await chunk in speech.chunks where !chunk.isEmpty {
                continuation.yield(Self.converted(chunk, from: speech.format, to: format))
            }
        }
        let speaking = Task {
            var said = 0, begun = 0
            if let process = await resident(waiting: false) {
                let line = { (index: Int) in Self.line(pieces[index], model: voice.modelPath, rate: request.rate) }
                do {
                    // One clause at a time: Piper renders faster than speech plays (a real-time
                    // factor near 0.06), so the next clause is ready long before this one has
                    // been heard, and a cut announcement leaves nothing queued behind it.
                    for index in pieces.indices {
                        if mandarin[index] {
                            try await espeak(pieces[index], language: "zh")
                        } else {
                            for try await chunk in process.say(line(index)) where !chunk.isEmpty {
                                continuation.yield(chunk)
                                // Part of it heard: espeak-ng must not say this clause again.
                                begun = index + 1
                            }
                        }
                        try Task.checkCancellation()
                        said += 1
                    }
                    state.withLock { $0.restarts.reset() }
                    return continuation.finish()
                } catch is CancellationError {
                    return continuation.finish(throwing: CancellationError())
                } catch {
                    // A clause cut after some of its audio is not said again: the rest of it is lost.
                    if begun > said {
                        logger.error("Piper failed part-way through clause \(said + 1) of \(pieces.count); espeak-ng says the clauses after it",
                                     metadata: ["error": "\(error)", "text": "\(request.text)", "cut": "\(pieces[said])"])
                        said = begun
                    } else {
                        logger.error("Piper failed after \(said) of \(pieces.count) clauses; espeak-ng says the rest",
                                     metadata: ["error": "\(error)", "text": "\(request.text)"])
                    }
                }
            } else {
                logger.warning("the Piper voice is not running (restarting); espeak-ng says it",
                               metadata: ["text": "\(request.text)"])
            }
            do {
                // The rest in runs of one language each: Mandarin clauses in espeak-ng's Mandarin.
                var index = said
                while index < pieces.count {
                    let run = (index..<pieces.count).prefix { mandarin[$0] == mandarin[index] }
                    try await espeak(run.map { pieces[$0] }.joined(separator: " "), language: mandarin[index] ? "zh" : request.language)
                    index = run.upperBound
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in speaking.cancel() }
        return SynthesizedSpeech(format: format, chunks: stream) { spokenBy.withLock { $0 } }
    }

    private static let current = Mutex<PiperSynthesizer?>(nil)

    /// The process-wide instance for `settings`: one resident process, whoever asks. Other
    /// settings (a config reload) replace it and stop the old one's process.
    public static func shared(settings: PiperSettings, logger: Logger) -> PiperSynthesizer {
        let settings = settings.resolved()
        let (chosen, replaced) = current.withLock { current -> (PiperSynthesizer, PiperSynthesizer?) in
            if let existing = current, existing.settings == settings { return (existing, nil) }
            let made = PiperSynthesizer(settings: settings, logger: logger)
            defer { current = made }
            return (made, current)
        }
        replaced?.stop()
        return chosen
    }

    /// Throws unless `voice` (a resolved request voice: "" the default, or the language's own)
    /// speaks `language` (a voice pack in Piper's voice).
    public func checkSpeaks(_ language: String, voice name: String) throws {
        let voice = try model(named: name)
        guard voice.languageFamily == SpeechNames.baseLanguage( language) else {
            let why = settings.voice(forLanguage: language).isEmpty
                ? "no Piper voice for \(language) is installed (scripts/install-voice.sh, or its .onnx and .onnx.json in \(settings.folder)/voices)"
                : "speech.voice names it for every language (leave it empty and the installed voice of \(language) is used)"
            throw SpeechError.engineUnavailable(
                "the Piper voice \(voice.name) speaks \(voice.languageCode), not \(language): \(why); or leave out --engine to render the pack in espeak-ng")
        }
    }

    /// The model for a voice name (aliases already resolved): "" the default, a model path, an
    /// installed voice's name.
    /// - Throws: `SpeechError.unknownVoice` when no such voice is installed.
    public func model(named target: String) throws -> PiperVoiceModel {
        // Asked for every request: the cached listings first, the files only when they miss.
        if target.isEmpty || target == settings.model {
            if let model = PiperVoiceModel.listed(settings.model) { return model }
            do { return try PiperVoiceModel.read(modelPath: settings.model) } catch {
                throw SpeechError.engineUnavailable("\(error)")
            }
        }
        if target.hasPrefix("/"), let model = PiperVoiceModel.listed(target) ?? (try? PiperVoiceModel.read(modelPath: target)) { return model }
        if let model = PiperVoiceModel.installedNow(in: settings.folder).first(where: { $0.name == target }) { return model }
        if let model = PiperVoiceModel.listed(settings.model), model.name == target { return model }
        throw SpeechError.unknownVoice(target)
    }

    /// The running process; starts it when it never ran. `waiting`: wait for a start in progress
    /// (the first start, or warm-up); otherwise nil while it starts again after a failure.
    private func resident(waiting: Bool) async -> PiperProcess? {
        let (running, starting) = state.withLock { state -> (PiperProcess?, Task<PiperProcess, any Error>?) in
            switch state.resident {
            case .running(let process): return (process, nil)
            case .starting(let task): return (nil, waiting || !state.firstStartOver ? task : nil)
            case .notStarted: return (nil, start(&state))
            case .resting, .stopped: return (nil, nil)
            }
        }
        if let running { return running }
        return try? await starting?.value
    }

    /// Starts the process; `state` must be locked. On success it becomes `running`; on failure,
    /// or when it ends later, `resting` until the backoff is over.
    private func start(_ state: inout State) -> Task<PiperProcess, any Error> {
        let settings = self.settings, logger = self.logger
        let task = Task {
            try await PiperProcess.launch(python: settings.python, model: settings.model, threads: settings.threads,
                                          timeout: .milliseconds(settings.timeoutMilliseconds),
                                          loadTimeout: .milliseconds(settings.loadTimeoutMilliseconds), logger: logger)
        }
        state.resident = .starting(task)
        Task {
            do {
                let process = try await task.value
                let stopped = self.state.withLock { state -> Bool in
                    if case .stopped = state.resident { return true }
                    state.resident = .running(process)
                    state.firstStartOver = true
                    return false
                }
                if stopped { return process.stop() }
                logger.info("the Piper voice is ready", metadata: ["pid": "\(process.pid)", "model": "\(settings.model)"])
                process.whenEnded { reason in self.failed(reason) }
            } catch {
                self.failed("\(error)")
            }
        }
        return task
    }

    private func failed(_ reason: String) {
        let delay = state.withLock { state -> Duration? in
            if case .stopped = state.resident { return nil }
            state.firstStartOver = true
            state.resident = .resting
            return state.restarts.next()
        }
        guard let delay else { return }
        logger.error("the Piper voice stopped; espeak-ng speaks until it is back",
                     metadata: ["reason": "\(reason)", "restart_in": "\(delay)"])
        Task {
            try? await Task.sleep(for: delay)
            self.state.withLock { state in
                if case .resting = state.resident { _ = self.start(&state) }
            }
        }
    }

    /// One request line for the process.
    static func line(_ sentence: String, model: String, rate: Int) -> Data {
        var request: [String: Any] = ["text": sentence, "model": model]
        // Herald's rate is words a minute, 175 normal; Piper's length scale is the inverse.
        if rate != 175 { request["length_scale"] = 175.0 / Double(max(80, min(450, rate))) }
        var data = (try? JSONSerialization.data(withJSONObject: request)) ?? Data()
        data.append(10)
        return data
    }

    /// The text cut after each `.`, `!`, `?` followed by a space (and their full-width forms) and
    /// at line breaks: what Piper would say as one chunk.
    static func sentences(in text: String) -> [String] {
        pieces(of: text, endingAfter: ".!?", fullWidth: "。！？")
    }

    /// The text cut into clauses, each with its punctuation, so Piper pauses as the text asks:
    /// after `,` `;` `:` `.` `!` `?` `…` followed by a space (so 1,000 and 25.30 stay whole), after
    /// the full-width `、` `，` `；` `：` `。` `！` `？` (Chinese puts no space after them), and at
    /// line breaks. A piece with nothing to say (punctuation alone) joins the clause before it.
    /// A long first clause is cut short (`firstChunk`): the first word waits for its render.
    static func clauses(in text: String) -> [String] {
        var clauses = pieces(of: text, endingAfter: ",;:.!?…", fullWidth: "、，；：。！？")
        if let first = clauses.first, let (head, rest) = firstChunk(of: first) {
            clauses.replaceSubrange(0...0, with: [head, rest])
        }
        return clauses
    }

    /// More words than this in the first clause and it is cut: Piper renders three or four words
    /// in well under 100 ms on two cores, a whole sentence in 200 to 300.
    static let firstChunkWords = 5

    /// Words a clause may be cut before without breaking its sense ("Order 18 for Dana | and her
    /// sister"), as a speaker takes a breath: conjunctions and the commonest prepositions.
    static let breathBefore: Set<String> = [
        "and", "or", "but", "for", "from", "with", "at", "to", "in", "on", "is", "are", "will", "please",
        "und", "oder", "für", "mit", "ist", "y", "o", "para", "con", "es", "et", "ou", "pour", "avec", "est",
        "e", "ou", "com", "é", "и", "в", "с",
    ]

    /// A first clause of more than `firstChunkWords` words cut at a word boundary: before a
    /// `breathBefore` word among the 2nd to 5th, else after the 3rd; nil when it is short, has
    /// no spaces (Chinese), or the rest would be a single word. Said in two chunks it lasts within
    /// a few percent of the clause said whole (scripts/bench.sh).
    static func firstChunk(of clause: String) -> (String, String)? {
        let words = clause.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count > firstChunkWords else { return nil }
        let cut = (2...4).first { Self.breathBefore.contains(words[$0].lowercased()) } ?? 3
        guard words.count - cut >= 2 else { return nil }
        return (words[..<cut].joined(separator: " "), words[cut...].joined(separator: " "))
    }

    private static func pieces(of text: String, endingAfter ascii: String, fullWidth: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        func cut() {
            let trimmed = current.trimmingCharacters(in: .whitespacesAndNewlines)
            current = ""
            guard !trimmed.isEmpty else { return }
            if let last = pieces.indices.last, !trimmed.contains(where: { $0.isLetter || $0.isNumber }) {
                pieces[last] += trimmed
            } else {
                pieces.append(trimmed)
            }
        }
        var previous: Character = " "
        for character in text {
            if character.isNewline || (character.isWhitespace && ascii.contains(previous)) {
                cut()
            } else {
                current.append(character)
                if fullWidth.contains(character) { cut() }
            }
            previous = character
        }
        cut()
        // Punctuation first and words after ("... hello"): the leading piece says nothing alone.
        if pieces.count > 1, !pieces[0].contains(where: { $0.isLetter || $0.isNumber }) {
            pieces[1] = pieces[0] + " " + pieces[1]
            pieces.removeFirst()
        }
        return pieces
    }

    /// True when `clause` has Han characters (CJK Unified Ideographs and their extension A).
    static func isMandarin(_ clause: String) -> Bool {
        clause.unicodeScalars.contains { (0x4E00...0x9FFF).contains($0.value) || (0x3400...0x4DBF).contains($0.value) }
    }

    static func converted(_ samples: [Float], from source: AudioFormat, to target: AudioFormat) -> [Float] {
        guard source != target else { return samples }
        return Clip(sampleRate: source.sampleRate, channelCount: source.channelCount, samples: samples).converted(to: target).samples
    }
}

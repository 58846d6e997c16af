import Foundation
import HeraldCore
import Speech

extension Doctor {
    /// The synthesizer and its voices, then the voice packs: English's and Mandarin's, and every
    /// other language's found in speech.packs or named by speech.language (said through CLDR,
    /// checked for the words of speech.currency, what `herald pack build` renders by default).
    func speechChecks() async -> [DoctorFinding] {
        var findings = [await synthesizerCheck(), languageCheck()]
        for grammar in AmountGrammars.all { findings.append(packCheck(grammar)) }
        let speech = context.configuration.speech
        for language in otherPackLanguages() {
            guard let grammar = try? AmountGrammars.grammar(for: language) else {
                // A folder's (config refuses a speech.language amounts cannot be said in).
                findings.append(DoctorFinding("voice pack \(language)", .warning,
                                              "\(speech.packsDirectory)/\(language): a pack for a language Herald cannot say amounts in",
                                              action: "remove it, or name the folder by a language code herald doctor lists under languages"))
                continue
            }
            findings.append(packCheck(grammar, currencies: [speech.currency]))
        }
        return findings
    }

    /// The languages of the packs in speech.packs and of speech.language, but English and Mandarin.
    func otherPackLanguages() -> [String] {
        let speech = context.configuration.speech
        let handWritten = Set(AmountGrammars.all.map(\.language))
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: speech.packsDirectory)) ?? []
        var languages = Set(folders.filter {
            FileManager.default.fileExists(atPath: (speech.packsDirectory as NSString).appendingPathComponent("\($0)/manifest.json"))
        })
        languages.insert(SpeechNames.baseLanguage(speech.language))
        return languages.subtracting(handWritten).sorted()
    }

    /// The languages amounts are said in, each with its amounts' source and whether a speaker
    /// checked its phrases, and whether speech.language has phrases of its own.
    func languageCheck() -> DoctorFinding {
        let speech = context.configuration.speech
        let bySource = AmountSource.allCases.compactMap { source -> String? in
            let languages = AmountGrammars.covered.filter { AmountGrammars.source(for: $0) == source }
            guard !languages.isEmpty else { return nil }
            return "\(source.rawValue): " + languages.map { PhraseTable.of($0).checkedBySpeaker ? $0 : "\($0)*" }.joined(separator: ", ")
        }.joined(separator: "; ")
        if let (notice, action) = speech.englishPhrasesNotice(for: speech.language) {
            return DoctorFinding("languages", .warning, "speech.language \(notice). Amounts: \(bySource) (* machine-written phrases)",
                                 action: action)
        }
        return DoctorFinding("languages", .ok, "amounts by \(bySource) (* machine-written phrases, not yet checked by a speaker)")
    }

    func synthesizerCheck() async -> DoctorFinding {
        let speech = context.configuration.speech
        if speech.engine == .piper { return await piperCheck(speech.piper) }
        guard speech.engine == .espeakNG else {
            let program = speech.command.split(separator: " ").first.map(String.init) ?? ""
            guard !program.isEmpty, Self.findProgram(program) != nil else {
                return DoctorFinding("speech", .problem, "speech.command's program '\(program)' is not on PATH: text cannot be spoken",
                                     action: "install it, or set speech.engine: espeak-ng")
            }
            return DoctorFinding("speech", .ok, "the command engine: \(speech.command)")
        }
        let catalog: EspeakVoiceCatalog
        do { catalog = try await EspeakSynthesizer.shared.catalog() } catch {
            return DoctorFinding("speech", .problem, "espeak-ng cannot start: \(error); text cannot be spoken",
                                 action: "apt-get install espeak-ng-data (or espeak-ng)")
        }
        let voice = speech.resolveVoice(nil, language: speech.language)
        guard catalog.knows(voice: voice) || catalog.knows(language: voice) else {
            return DoctorFinding("speech", .problem, "espeak-ng has no voice '\(voice)' for speech.language \(speech.language)",
                                 action: "set speech.voice to one of `espeak-ng --voices`, or speech.language to one of \(catalog.suggestedLanguages.joined(separator: ", "))")
        }
        let unknown = speech.voiceAliases.sorted { $0.key < $1.key }
            .filter { !catalog.knows(voice: $0.value) && !catalog.knows(language: $0.value) }
        if !unknown.isEmpty {
            return DoctorFinding("speech", .warning, "espeak-ng (\(catalog.voices.count) voices) lacks the voices of speech.voices aliases \(unknown.map { "\($0.key): \($0.value)" }.joined(separator: ", ")); requests naming them get a 400",
                                 action: "map those aliases to voices `espeak-ng --voices` lists")
        }
        return DoctorFinding("speech", .ok, "espeak-ng, voice \(voice) for \(speech.language), \(catalog.voices.count) voices installed")
    }

    /// Starts Piper as the daemon would and has it say a word: a voice that loads but cannot
    /// speak (a broken model, a missing onnxruntime) shows here, not at the first payment.
    func piperCheck(_ requested: PiperSettings) async -> DoctorFinding {
        let settings = requested.resolved()
        let voice: PiperVoiceModel
        do { voice = try PiperVoiceModel.read(modelPath: settings.model) } catch {
            return DoctorFinding("speech", .problem, "Piper: \(error); espeak-ng says everything instead",
                                 action: "scripts/install-voice.sh, or set speech.piper.model")
        }
        let piper = PiperSynthesizer(settings: settings, logger: context.logger)
        defer { piper.stop() }
        let started = ContinuousClock.now
        do {
            let renderer = SpeechRenderer(settings: context.configuration.speech, synthesizer: piper, cache: nil, logger: context.logger)
            _ = try await renderer.synthesizeWhole(SpeechRequest(text: "Ready.", language: voice.languageFamily, voice: "",
                                                                 rate: 175, pitch: 50), requiring: .piper)
        } catch {
            return DoctorFinding("speech", .problem, "Piper cannot speak with \(voice.name): \(error); espeak-ng says everything instead",
                                 action: "run scripts/install-voice.sh again, or check speech.piper.python (\(settings.python))")
        }
        let elapsed = (ContinuousClock.now - started).inMilliseconds
        return DoctorFinding("speech", .ok, "Piper, voice \(voice.name) (\(voice.languageCode), \(voice.sampleRate) Hz): loaded and spoke in \(elapsed) ms; \(otherLanguages(settings, besides: voice))")
    }

    /// The languages installed Piper voices say besides the default's, and who says the rest.
    func otherLanguages(_ settings: PiperSettings, besides defaultVoice: PiperVoiceModel) -> String {
        let others = Set(settings.installedVoices.map(\.languageFamily)).subtracting([defaultVoice.languageFamily]).sorted()
        return others.isEmpty ? "espeak-ng says other languages" : "installed voices also say \(others.joined(separator: ", ")); espeak-ng says other languages"
    }

    /// A pack that lacks a word, or whose clip file is gone, makes payments synthesized instead:
    /// still heard, but not in the recorded voice.
    func packCheck(_ grammar: any AmountGrammar, currencies: [Currency] = Currency.all) -> DoctorFinding {
        let speech = context.configuration.speech
        let check = "voice pack \(grammar.language)"
        if let voice = grammar as? VoiceNumberAmountGrammar, !voice.composesFromClips {
            return DoctorFinding(check, .ok, "\(grammar.language) payments are synthesized: the voice reads their numbers by its own rules")
        }
        let pack: VoicePack
        do {
            guard let found = try VoicePack.find(language: grammar.language, in: speech.packsDirectory) else {
                return DoctorFinding(check, grammar.language == speech.language ? .warning : .ok,
                                     "none in \(speech.packsDirectory); \(grammar.language) payments are synthesized",
                                     action: grammar.language == speech.language ? "herald pack build \(grammar.language)" : nil)
            }
            pack = found
        } catch {
            return DoctorFinding(check, .warning, "\(error); \(grammar.language) payments are synthesized",
                                 action: "fix the manifest, or render it again: herald pack build \(grammar.language)")
        }
        let tokens = grammar.vocabulary(for: currencies) + speech.phrase(for: grammar.language).literalTokens
        let missing = pack.missing(tokens)
        let unreadable = Set(tokens).subtracting(missing).sorted().filter { token in
            guard let file = pack.manifest.clips[token] else { return false }
            return !FileManager.default.isReadableFile(atPath: (pack.directory as NSString).appendingPathComponent(file))
        }
        guard missing.isEmpty && unreadable.isEmpty else {
            var gaps: [String] = []
            if !missing.isEmpty { gaps.append("no clip in manifest.json for \(Self.quoted(missing))") }
            if !unreadable.isEmpty {
                gaps.append("clip files missing for \(unreadable.map { "'\($0)' (\(pack.manifest.clips[$0] ?? ""))" }.joined(separator: ", "))")
            }
            return DoctorFinding(check, .warning, "\(pack.directory): \(gaps.joined(separator: "; ")); amounts with those words are synthesized",
                                 action: "record the words into \(pack.directory) under the names manifest.json gives, or render the pack again: herald pack build \(grammar.language)")
        }
        return DoctorFinding(check, .ok, "\(pack.directory): all \(Set(tokens).count) words")
    }

    static func quoted(_ words: [String]) -> String { words.map { "'\($0)'" }.joined(separator: ", ") }

    static func findProgram(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

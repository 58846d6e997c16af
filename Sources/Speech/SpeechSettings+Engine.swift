import HeraldCore
import Logging

extension SpeechSettings {
    /// The engine voice for a request: an alias, the voice itself, or the language's default.
    /// For Piper, "" is the default model, a language it does not speak takes an installed voice of
    /// that language, and the push payload's names (nova, alloy...) are the default model unless
    /// `speech.piper.voices` maps them.
    public func resolveVoice(_ requested: String?, language: String) -> String {
        let name = (requested?.isEmpty == false ? requested : nil) ?? (voice.isEmpty ? nil : voice)
        if engine == .piper {
            // No voice asked for: the default model, or an installed voice of the language.
            guard let name else { return piper.voice(forLanguage: language) }
            if let mapped = piper.voices[name.lowercased()] { return mapped }
            return Self.defaultAliases[name.lowercased()] == nil ? name : piper.voice(forLanguage: language)
        }
        guard let name else { return EspeakSynthesizer.defaultVoice(language: language) }
        return voiceAliases[name.lowercased()] ?? name
    }

    /// `language`'s phrases: Herald's table for it (English's when it has none) with what
    /// `speech.phrases` replaces, the tag's own (`pt-br`) over its base language's (`pt`).
    public func phrases(for language: String) -> PhraseTable {
        PhraseTable.of(language).replacing(overrides(for: language))
    }

    /// What `speech.phrases` gives for `language`: its base language's, and over them the tag's own.
    func overrides(for language: String) -> [PhraseKey: String] {
        let tag = SpeechNames.phraseTag(language), base = SpeechNames.baseLanguage(language)
        return (phraseOverrides[base] ?? [:]).merging(tag == base ? [:] : phraseOverrides[tag] ?? [:]) { _, own in own }
    }

    /// The phrases `language` still takes from English's table: none when Herald has a table for
    /// it, else those `speech.phrases` does not give.
    public func englishPhrases(for language: String) -> [PhraseKey] {
        guard !PhraseTable.has(language) else { return [] }
        let given = overrides(for: language)
        return PhraseKey.allCases.filter { given[$0] == nil }
    }

    /// What `config check` and `herald doctor` say when `language`'s phrases are partly or wholly
    /// English's, with what to set; nil when they are all its own.
    public func englishPhrasesNotice(for language: String) -> (notice: String, action: String)? {
        let english = englishPhrases(for: language)
        guard !english.isEmpty else { return nil }
        let englishTable = PhraseTable.of("en")
        let quoted = english.map { "\($0.rawValue) \"\(englishTable.phrase($0))\"" }.joined(separator: ", ")
        let key = "speech.phrases.\(SpeechNames.baseLanguage(language))"
        let amounts = paymentLanguage(for: language) == language ? "amounts in \(language)" : "payments wholly in English, amounts too"
        return ("\(language) has no phrase table: these are said in English (\(amounts)): \(quoted)",
                "set \(english.map { "\(key).\($0.rawValue)" }.joined(separator: ", ")) in the config file (a section under \(key))")
    }

    /// The language a payment asked for in `language` is said in: its own when it has phrases
    /// (Herald's table, or `speech.phrases` giving its payment sentence), else English, the amount
    /// included: "Payment received: two hundred fifty Indian rupees", not English around Italian.
    public func paymentLanguage(for language: String) -> String {
        PhraseTable.has(language) || overrides(for: language)[.payment] != nil ? language : "en"
    }

    /// What a payment of `amount` asked for in `language` says, in the language it is said in
    /// (`paymentLanguage(for:)`): "Payment received: twenty-five dollars and thirty cents".
    /// - Throws: `SpeechError.unknownLanguage` when Herald cannot say amounts in that language.
    public func paymentSentence(_ amount: Amount, language: String) throws -> (phrase: AmountPhrase, language: String) {
        let spoken = paymentLanguage(for: language)
        let grammar = try AmountGrammars.grammar(for: spoken)
        return (phrase(for: spoken).fill(grammar.words(for: amount)), spoken)
    }

    /// The payment sentence for `language`.
    public func phrase(for language: String) -> PhraseTemplate {
        PhraseTemplate(phrases(for: language).paymentReceived)
    }

    /// The synthesizer this config asks for.
    public func makeSynthesizer(logger: Logger) -> any Synthesizer {
        switch engine {
        case .espeakNG: EspeakSynthesizer.shared
        case .command: CommandSynthesizer(command: command, timeout: .milliseconds(commandTimeoutMilliseconds))
        case .piper: PiperSynthesizer.shared(settings: piper, logger: logger)
        }
    }
}

import HeraldCore

/// A language or voice a request may not use: the field it came in, and what to do.
public struct SpeechFieldError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request field, as the caller names it (`lang`, `message.data.voice`, `--voice`).
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}

extension SpeechSettings {
    /// Checks the language a request names, before it is queued: a language tag that Herald can
    /// speak with this config's engine, and for a payment one the amount grammars know.
    /// - Parameters:
    ///   - forPayment: amounts are composed by a grammar (en, zh by hand, others from CLDR or the voice's number rules), whatever the engine.
    ///   - field: the request field to name in the error.
    /// - Throws: `SpeechFieldError` saying which languages to use instead.
    public func checkLanguage(_ language: String, forPayment: Bool, field: String = "lang") async throws(SpeechFieldError) {
        // Only in the errors: the list makes every built-in language's grammar the first time.
        guard SpeechNames.isLanguageTag(language) else {
            let grammarLanguages = AmountGrammars.covered.joined(separator: ", ") + " (or another language CLDR spells numbers in)"
            throw SpeechFieldError(field: field, message: "\(SpeechNames.quoted(language)) is not a language tag (letters, digits and -, at most 35 characters); use \(forPayment ? grammarLanguages : await suggestedLanguages()), or omit it")
        }
        if forPayment {
            guard (try? AmountGrammars.grammar(for: language)) != nil else {
                throw SpeechFieldError(field: field, message: "amounts cannot be spoken in \(SpeechNames.quoted(language)) (CLDR spells no numbers in it that a voice here reads, and it is not among the languages whose numbers the voice reads itself: docs/languages.md); use \(AmountGrammars.covered.joined(separator: ", ")), or omit it")
            }
        }
        guard engine == .espeakNG, let catalog = try? await EspeakSynthesizer.shared.catalog() else { return }
        guard catalog.knows(language: language) else {
            throw SpeechFieldError(field: field, message: "\(SpeechNames.quoted(language)) is not a language espeak-ng speaks; use \(await suggestedLanguages()), or omit it")
        }
    }

    /// Checks the voice a request names: an alias from `speech.voices`, else a voice the engine
    /// has (espeak-ng's list), else, for the command engine, a plain voice name.
    /// - Throws: `SpeechFieldError` naming the aliases to use instead.
    public func checkVoice(_ voice: String, field: String = "voice") async throws(SpeechFieldError) {
        if voiceAliases[voice.lowercased()] != nil { return }
        let aliases = voiceAliases.keys.sorted().joined(separator: ", ")
        let instead = aliases.isEmpty ? "" : "an alias from speech.voices (\(aliases)), "
        guard SpeechNames.isVoiceName(voice) else {
            throw SpeechFieldError(field: field, message: "\(SpeechNames.quoted(voice)) is not a voice name (letters, digits and _ . + -, starting with a letter or digit, at most 64); use \(instead)or omit it")
        }
        guard engine == .espeakNG, let catalog = try? await EspeakSynthesizer.shared.catalog() else { return }
        guard catalog.knows(voice: voice) else {
            throw SpeechFieldError(field: field, message: "\(SpeechNames.quoted(voice)) is neither an alias in speech.voices nor a voice espeak-ng has; use \(instead)an espeak-ng voice such as en-us or en-us+f3 ('espeak-ng --voices' lists them), or omit it")
        }
    }

    /// `en, zh, de, fr ... ('espeak-ng --voices' lists them)` for the espeak-ng engine.
    private func suggestedLanguages() async -> String {
        guard engine == .espeakNG, let catalog = try? await EspeakSynthesizer.shared.catalog() else {
            return "a tag such as en or zh"
        }
        return "one of \(catalog.suggestedLanguages.joined(separator: ", ")) ... ('espeak-ng --voices' lists them)"
    }
}

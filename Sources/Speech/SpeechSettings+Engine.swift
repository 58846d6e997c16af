import HeraldCore
import Logging

extension SpeechSettings {
    /// The engine voice for a request: an alias, the voice itself, or the language's default.
    /// For Piper, "" is the default model, and the push payload's names (nova, alloy...) are the
    /// default model unless `speech.piper.voices` maps them.
    public func resolveVoice(_ requested: String?, language: String) -> String {
        let name = (requested?.isEmpty == false ? requested : nil) ?? (voice.isEmpty ? nil : voice)
        if engine == .piper {
            guard let name else { return "" }
            if let mapped = piper.voices[name.lowercased()] { return mapped }
            return Self.defaultAliases[name.lowercased()] == nil ? name : ""
        }
        guard let name else { return EspeakSynthesizer.defaultVoice(language: language) }
        return voiceAliases[name.lowercased()] ?? name
    }

    /// The template for `language`.
    public func phrase(for language: String) -> PhraseTemplate {
        let base = SpeechNames.baseLanguage(language)
        return phrases[base].map(PhraseTemplate.init) ?? PhraseTemplate.standard(language: base)
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

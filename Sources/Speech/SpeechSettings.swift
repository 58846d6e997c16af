import HeraldCore
import Logging

/// The speech part of the config, already validated.
public struct SpeechSettings: Sendable, Equatable {
    public enum Engine: String, Sendable, CaseIterable { case espeakNG = "espeak-ng", command, piper }

    public var engine: Engine = .espeakNG
    /// For the `command` engine.
    public var command: String = ""
    public var commandTimeoutMilliseconds: Int = 10_000
    /// For the `piper` engine.
    public var piper = PiperSettings()
    public var language: String = "en"
    /// Empty: the engine's default voice for the language.
    public var voice: String = ""
    public var rate: Int = 175
    public var pitch: Int = 50
    /// Alias -> engine voice; the push payload's names by default.
    public var voiceAliases: [String: String] = SpeechSettings.defaultAliases
    /// Language -> template with `{amount}`.
    public var phrases: [String: String] = ["en": "Payment received: {amount}", "zh": "收款{amount}"]
    public var currency: Currency = .usd
    /// Where voice packs live (`Sounds/voices`).
    public var packsDirectory: String = ""

    public init() {}

    public static let defaultAliases = [
        "alloy": "en-us", "echo": "en-us+m3", "fable": "en-gb", "onyx": "en-us+m7",
        "nova": "en-us+f3", "shimmer": "en-us+f4",
    ]

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
        let base = language.lowercased().split(separator: "-").first.map(String.init) ?? language
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

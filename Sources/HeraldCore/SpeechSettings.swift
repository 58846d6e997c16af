/// The speech part of the config, already validated (`speech`). The engines that act on it
/// live in Speech.
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
    /// `speech.phrases`: language tag (as `SpeechNames.phraseTag` keeps it) -> the phrases it replaces in that language's
    /// table, each already checked against `PhraseKey.problem(in:)`.
    public var phraseOverrides: [String: [PhraseKey: String]] = [:]
    public var currency: Currency = .usd
    /// Where voice packs live (`Sounds/voices`).
    public var packsDirectory: String = ""

    public init() {}

    /// The push payload's voice names (OpenAI's), as espeak-ng voices.
    public static let defaultAliases = [
        "alloy": "en-us", "echo": "en-us+m3", "fable": "en-gb", "onyx": "en-us+m7",
        "nova": "en-us+f3", "shimmer": "en-us+f4",
    ]
}

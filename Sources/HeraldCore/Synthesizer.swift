/// Everything that changes how a sentence sounds; also the clip cache's key material.
public struct SpeechRequest: Sendable, Hashable {
    public var text: String
    /// BCP 47-ish language, `en` or `zh`.
    public var language: String
    /// The engine's own voice name (aliases already resolved).
    public var voice: String
    /// Words per minute.
    public var rate: Int
    /// 0 to 100, 50 normal.
    public var pitch: Int

    public init(text: String, language: String, voice: String, rate: Int, pitch: Int) {
        self.text = text
        self.language = language
        self.voice = voice
        self.rate = rate
        self.pitch = pitch
    }
}

/// A text-to-speech engine.
public protocol Synthesizer: Sendable {
    /// `espeak-ng` or `command`: part of the cache key.
    var engineName: String { get }
    /// Starts synthesizing and returns the audio as it is produced; the first chunk arrives
    /// before the rest is synthesized when the engine can stream.
    func synthesize(_ request: SpeechRequest) async throws -> (AudioFormat, AsyncThrowingStream<[Float], any Error>)
}

/// Speech failures a person can act on.
public enum SpeechError: Error, Equatable, CustomStringConvertible {
    case engineUnavailable(String)
    case unknownVoice(String)
    case unknownLanguage(String)
    case commandFailed(String)
    case emptyText

    public var description: String {
        switch self {
        case .engineUnavailable(let detail): "the speech engine is not available: \(detail)"
        case .unknownVoice(let voice): "unknown voice '\(voice)'; list voices with 'espeak-ng --voices' or add an alias under speech.voices"
        case .unknownLanguage(let language):
            "unknown language '\(language)'; amounts are spoken in en or zh, text in any language 'espeak-ng --voices' lists"
        case .commandFailed(let detail): "the speech command failed: \(detail)"
        case .emptyText: "nothing to say: the text is empty"
        }
    }
}

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

/// Speech as it is synthesized.
public struct SynthesizedSpeech: Sendable {
    public var format: AudioFormat
    /// The samples as they are produced; the first chunk arrives before the rest is synthesized
    /// when the engine can stream.
    public var chunks: AsyncThrowingStream<[Float], any Error>
    /// Who said it, final once `chunks` has ended: an engine that handed part or all of it to a
    /// fallback engine answers the fallback's source, so the log says so and the cache keeps
    /// none of it under the first engine's name.
    public var spokenBy: @Sendable () -> ClipSource

    public init(format: AudioFormat, chunks: AsyncThrowingStream<[Float], any Error>,
                spokenBy: @escaping @Sendable () -> ClipSource = { .synth }) {
        self.format = format
        self.chunks = chunks
        self.spokenBy = spokenBy
    }
}

/// A text-to-speech engine.
public protocol Synthesizer: Sendable {
    /// `espeak-ng`, `command` or `piper:<model hash>`: part of the cache key.
    var engineName: String { get }
    /// The engine's name for speech in `voice` (a resolved `SpeechRequest.voice`): what the cache
    /// key and a pack's manifest hold, so speech of a replaced voice is never replayed.
    func engineName(voice: String) -> String
    /// What the log calls this engine's speech when nothing fell back.
    var clipSource: ClipSource { get }
    /// Starts synthesizing and returns the audio as it is produced.
    func synthesize(_ request: SpeechRequest) async throws -> SynthesizedSpeech
    /// Loads what the first synthesis would otherwise load (a resident process, a voice), so the
    /// first announcement is as fast as the next; what fails is logged and tried again later.
    func prepare() async
}

extension Synthesizer {
    public var clipSource: ClipSource { .synth }
    public func engineName(voice: String) -> String { engineName }
    public func prepare() async {}
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
            "unknown language '\(language)'; amounts are spoken in en, zh and the languages CLDR spells numbers in (herald doctor lists them), text in any language 'espeak-ng --voices' lists"
        case .commandFailed(let detail): "the speech command failed: \(detail)"
        case .emptyText: "nothing to say: the text is empty"
        }
    }
}

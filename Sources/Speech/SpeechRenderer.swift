import Foundation
import HeraldCore
import Logging
import Synchronization

/// Audio ready to play, and where it came from.
public struct RenderedAudio: Sendable {
    public var source: AudioSource
    /// Where it comes from as far as is known before it plays; `settledClipSource` after.
    public var clipSource: ClipSource
    /// What is said: the text, or the amount in words inside its phrase.
    public var spokenText: String
    /// Run once a playback finished, with whether it played to its end: counts the cache lookup,
    /// and stores freshly synthesized speech in the cache when it was said whole. Not run for
    /// audio that never played (suppressed, failed, lost): its lookup is not counted.
    public var afterPlayback: (@Sendable (_ playedToEnd: Bool) async -> Void)?
    /// Where it came from once it played: a synthesizer that fell back to another engine half-way
    /// names the fallback. Nil: `clipSource`.
    public var spokenBy: (@Sendable () -> ClipSource)?

    public init(source: AudioSource, clipSource: ClipSource, spokenText: String,
                afterPlayback: (@Sendable (_ playedToEnd: Bool) async -> Void)? = nil,
                spokenBy: (@Sendable () -> ClipSource)? = nil) {
        self.source = source
        self.clipSource = clipSource
        self.spokenText = spokenText
        self.afterPlayback = afterPlayback
        self.spokenBy = spokenBy
    }

    /// Where the audio came from, read after it played.
    public var settledClipSource: ClipSource { spokenBy?() ?? clipSource }
}

/// Turns text and payments into audio: the clip cache first, then a voice pack for amounts,
/// then the synthesizer (streaming), trimming the synthesizer's own silence.
public struct SpeechRenderer: Sendable {
    public let settings: SpeechSettings
    let synthesizer: any Synthesizer
    let cache: ClipCache?
    let logger: Logger

    public init(settings: SpeechSettings, synthesizer: any Synthesizer, cache: ClipCache?, logger: Logger) {
        self.settings = settings
        self.synthesizer = synthesizer
        self.cache = cache
        self.logger = logger
    }

    /// The request that `text` in `language` with `voice` makes.
    public func request(text: String, language: String?, voice: String?) -> SpeechRequest {
        let language = language ?? settings.language
        return SpeechRequest(text: text, language: language,
                             voice: settings.resolveVoice(voice, language: language),
                             rate: settings.rate, pitch: settings.pitch)
    }

    /// Speech for `text`: from the cache when it was said before, else synthesized as it plays.
    public func render(text: String, language: String?, voice: String?) async throws -> RenderedAudio {
        let request = request(text: text, language: language, voice: voice)
        // Worked out once: the lookup and the store after the playback use the same key.
        let engine = synthesizer.engineName(voice: request.voice)
        // Counted after the playback: not a synced write between the request and the first word.
        var lookup: (clip: Clip?, count: @Sendable () -> Void) = (nil, {})
        if let cache {
            do {
                lookup = try await cache.lookUp(engine: engine, request: request)
            } catch {
                // A failing disk must not keep the sentence from being said: synthesize it instead.
                logger.warning("the clip cache cannot be read; synthesizing", metadata: ["error": "\(error)"])
            }
        }
        let countLookup = lookup.count
        if let clip = lookup.clip {
            return RenderedAudio(source: .clip(clip), clipSource: .cache, spokenText: text,
                                 afterPlayback: { _ in countLookup() })
        }
        let speech: SynthesizedSpeech
        do {
            speech = try await synthesizer.synthesize(request)
        } catch SpeechError.unknownVoice(let name) where (voice ?? "").isEmpty && settings.voice.isEmpty {
            // No voice was asked for: the language itself is what the engine does not know.
            throw SpeechError.unknownLanguage(language ?? name)
        }
        let (format, chunks) = (speech.format, speech.chunks)
        let collected = Mutex<[Float]>([])
        let (trimmed, continuation) = AsyncThrowingStream<[Float], any Error>.makeStream()
        let forwarder = Task {
            var trimmer = SilenceTrimmer(channelCount: format.channelCount)
            do {
                for try await chunk in chunks {
                    let kept = trimmer.trimLeading(chunk)
                    guard !kept.isEmpty else { continue }
                    collected.withLock { $0 += kept }
                    continuation.yield(kept)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in forwarder.cancel() }
        let cache = self.cache, logger = self.logger
        let expected = synthesizer.clipSource, spokenBy = speech.spokenBy
        return RenderedAudio(source: .stream(format, trimmed), clipSource: expected, spokenText: text, afterPlayback: { playedToEnd in
            countLookup()
            // Speech a fallback engine said is not this engine's: caching it under this engine's
            // name would replay the fallback voice for good.
            guard playedToEnd, let cache, spokenBy() == expected else { return }
            let samples = collected.withLock { $0 }
            let clip = SilenceTrimmer.trimmed(Clip(sampleRate: format.sampleRate, channelCount: format.channelCount,
                                                   samples: samples))
            do { try await cache.store(clip, engine: engine, request: request) } catch {
                logger.warning("could not cache the clip: \(error)")
            }
        }, spokenBy: spokenBy)
    }

    /// Speech for a payment: composed from the language's voice pack when it has every word,
    /// else synthesized (the reason is logged). A language without phrases of its own says the
    /// whole sentence in English (`SpeechSettings.paymentSentence`), not a mixture.
    public func render(payment amount: Amount, language: String?) async throws -> RenderedAudio {
        let (phrase, language) = try settings.paymentSentence(amount, language: language ?? settings.language)
        do {
            if let pack = try VoicePack.find(language: language, in: settings.packsDirectory) {
                let missing = pack.missing(phrase.tokens)
                if missing.isEmpty {
                    let clip = try pack.compose(phrase.tokens)
                    return RenderedAudio(source: .clip(clip), clipSource: .pack, spokenText: phrase.text)
                }
                logger.notice("voice pack \(pack.directory) lacks \(missing); synthesizing the amount instead")
            } else {
                logger.notice("no voice pack for '\(language)' in \(settings.packsDirectory); synthesizing the amount")
            }
        } catch {
            logger.warning("voice pack unusable (\(error)); synthesizing the amount instead")
        }
        return try await render(text: phrase.text, language: language, voice: nil)
    }

    /// Renders `text` into the cache unless it is there already. Returns true when it rendered.
    public func warm(text: String, language: String?, voice: String?) async throws -> Bool {
        guard let cache else { return false }
        let request = request(text: text, language: language, voice: voice)
        let engine = synthesizer.engineName(voice: request.voice)
        if try await cache.clip(engine: engine, request: request) != nil { return false }
        let clip = try await synthesizeWhole(request, requiring: synthesizer.clipSource)
        try await cache.store(clip, engine: engine, request: request)
        return true
    }

    /// The whole clip for `request`, trimmed at both ends (for caches and voice packs), from
    /// `engine` (this renderer's synthesizer by default). With `requiring`, throws when another
    /// engine said it: a voice pack rendered with Piper must not hold words espeak-ng said while
    /// Piper restarted.
    public func synthesizeWhole(_ request: SpeechRequest, on engine: (any Synthesizer)? = nil,
                                requiring: ClipSource? = nil) async throws -> Clip {
        let speech = try await (engine ?? synthesizer).synthesize(request)
        var samples: [Float] = []
        for try await chunk in speech.chunks { samples += chunk }
        if let requiring, speech.spokenBy() != requiring {
            throw SpeechError.engineUnavailable("'\(request.text)' was said by \(speech.spokenBy().rawValue), not \(requiring.rawValue)")
        }
        let format = speech.format
        return SilenceTrimmer.trimmed(Clip(sampleRate: format.sampleRate, channelCount: format.channelCount, samples: samples))
    }
}

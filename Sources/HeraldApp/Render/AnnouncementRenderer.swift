import AsyncHTTPClient
import Foundation
import HeraldConfig
import HeraldCore
import SoundFile
import Speech

/// An announcement's body as audio (the file, the cache, the voice pack, the synthesizer or the
/// URL), and what goes before it: the lead-in silence and the chime.
public struct AnnouncementRenderer: Sendable {
    let configuration: HeraldConfiguration
    let clipCache: ClipCache
    /// The daemon's one HTTP client, for an `audio_url` not fetched at intake (nil: the CLI's).
    let httpClient: HTTPClient?
    /// Text and payments to audio, with this config's engine, voices, packs and cache.
    public let speech: SpeechRenderer

    public init(context: HeraldContext) {
        configuration = context.configuration
        clipCache = context.clipCache
        httpClient = context.httpClient
        speech = context.makeRenderer()
    }

    /// Audio for `request`: the file, the cache, the voice pack or the synthesizer.
    public func render(_ request: AnnouncementRequest) async throws -> RenderedAudio {
        switch request.body {
        case .file(let path):
            let clip = try SoundFileDecoder.decode(path: path)
            return RenderedAudio(source: .clip(clip), clipSource: .file, spokenText: path)
        case .text(let text):
            return try await speech.render(text: text, language: request.language, voice: request.voice)
        case .payment(let amount):
            return try await speech.render(payment: amount, language: request.language)
        case .audioURL(let url):
            // Replayed or requeued from the log: the fetched clip is in the cache, not in memory.
            let clip = try await RemoteAudio(settings: configuration.audioURL, cache: clipCache,
                                             client: httpClient).clip(for: url)
            return RenderedAudio(source: .clip(clip), clipSource: .url, spokenText: url)
        case .fetchedAudio(let url, let clip):
            return RenderedAudio(source: .clip(clip), clipSource: .url, spokenText: url)
        }
    }

    /// `rendered` with `leadIn` milliseconds of silence and the chime asked for (or the
    /// priority's) before it.
    func withPrefix(_ rendered: RenderedAudio, for request: AnnouncementRequest,
                    leadIn: Int) throws -> (source: AudioSource, prefixMilliseconds: Int) {
        let prefix = Self.prefix(leadInMilliseconds: leadIn, chime: try chimeClip(for: request),
                                 format: rendered.source.format)
        return (Self.prepend(prefix, to: rendered.source), prefix.durationMilliseconds)
    }

    /// The chime asked for, or the priority's; nil for none.
    private func chimeClip(for request: AnnouncementRequest) throws -> Clip? {
        let path: String?
        if let name = request.chime {
            path = name.lowercased() == "none" ? nil : HeraldConfiguration.chimePath(name, in: configuration.soundsDirectory)
        } else {
            path = configuration.chimes[request.priority]
        }
        return try path.map { try DecodedClips.shared.clip(path: $0) }
    }

    /// Lead-in silence, then the chime, in the body's format.
    static func prefix(leadInMilliseconds: Int, chime: Clip?, format: AudioFormat) -> Clip {
        let silence = [Float](repeating: 0, count: format.sampleRate * leadInMilliseconds / 1000 * format.channelCount)
        var samples = silence
        if let chime {
            samples += chime.converted(to: format).samples
            // A short breath between the chime and the first word.
            samples += [Float](repeating: 0, count: format.sampleRate * 80 / 1000 * format.channelCount)
        }
        return Clip(sampleRate: format.sampleRate, channelCount: format.channelCount, samples: samples)
    }

    static func prepend(_ prefix: Clip, to source: AudioSource) -> AudioSource {
        guard !prefix.samples.isEmpty else { return source }
        switch source {
        case .clip(let clip):
            var joined = clip
            joined.samples = prefix.samples + clip.samples
            return .clip(joined)
        case .stream(let format, let chunks):
            let (stream, continuation) = AsyncThrowingStream<[Float], any Error>.makeStream()
            continuation.yield(prefix.samples)
            let forwarder = Task {
                do {
                    for try await chunk in chunks { continuation.yield(chunk) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in forwarder.cancel() }
            return .stream(format, stream)
        }
    }
}

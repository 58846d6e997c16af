import Synchronization

/// What a playback was handed, collected as it goes, so the exact audio said can be kept for
/// listening back: a clip as it is, a stream (synthesis clause by clause) chunk by chunk as it is
/// handed on to the player. Collecting costs the player one append per chunk.
public final class PlayedAudio: Sendable {
    public let format: AudioFormat
    private let samples: Mutex<[Float]>

    public init(format: AudioFormat) {
        self.format = format
        samples = Mutex([])
    }

    /// `source`, collected into a new `PlayedAudio` as it is read.
    public static func recording(_ source: AudioSource) -> (AudioSource, PlayedAudio) {
        let played = PlayedAudio(format: source.format)
        switch source {
        case .clip(let clip):
            played.append(clip.samples)
            return (source, played)
        case .stream(let format, let chunks):
            let (stream, continuation) = AsyncThrowingStream<[Float], any Error>.makeStream()
            // One iterator for the whole stream; the chunk is kept before the player can have it.
            let forwarder = Task {
                do {
                    for try await chunk in chunks {
                        played.append(chunk)
                        continuation.yield(chunk)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in forwarder.cancel() }
            return (.stream(format, stream), played)
        }
    }

    func append(_ chunk: [Float]) {
        samples.withLock { $0 += chunk }
    }

    /// What was collected, cut to its first `milliseconds` when given (a playback stopped early
    /// played only that much of what it was handed).
    public func clip(upTo milliseconds: Int? = nil) -> Clip {
        var taken = samples.withLock { $0 }
        if let milliseconds {
            let frames = max(0, milliseconds) * format.sampleRate / 1000
            let count = frames * format.channelCount
            if count < taken.count { taken.removeLast(taken.count - count) }
        }
        return Clip(sampleRate: format.sampleRate, channelCount: format.channelCount, samples: taken)
    }
}

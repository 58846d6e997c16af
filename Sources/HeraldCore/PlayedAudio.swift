import Synchronization

/// What a playback was handed, collected as it goes, so the exact audio said can be kept for
/// listening back: a clip as it is (shared, not copied), a stream (synthesis clause by clause)
/// chunk by chunk as the player takes it, in the player's own task: no task in between, so the
/// first sample is not held up by collecting it.
public final class PlayedAudio: Sendable {
    public let format: AudioFormat
    private let samples: Mutex<[Float]>

    init(format: AudioFormat, samples: [Float] = []) {
        self.format = format
        self.samples = Mutex(samples)
    }

    /// `source`, collected into a new `PlayedAudio` as it is read.
    public static func recording(_ source: AudioSource) -> (AudioSource, PlayedAudio) {
        switch source {
        case .clip(let clip):
            return (source, PlayedAudio(format: source.format, samples: clip.samples))
        case .stream(let format, let chunks):
            let played = PlayedAudio(format: format)
            let upstream = Upstream(chunks.makeAsyncIterator())
            let stream = AsyncThrowingStream<[Float], any Error> {
                guard let chunk = try await upstream.next() else { return nil }
                played.append(chunk)
                return chunk
            }
            return (.stream(format, stream), played)
        }
    }

    private func append(_ chunk: [Float]) {
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

/// The iterator of the stream a recording reads from. `@unchecked Sendable` because the
/// `AsyncThrowingStream(unfolding:)` it serves calls its closure for one consumer at a time, each
/// call after the last returned: the iterator is never used from two tasks at once.
private final class Upstream: @unchecked Sendable {
    private var iterator: AsyncThrowingStream<[Float], any Error>.Iterator

    init(_ iterator: AsyncThrowingStream<[Float], any Error>.Iterator) { self.iterator = iterator }

    func next() async throws -> [Float]? { try await iterator.next() }
}

/// The sample layout of PCM audio: interleaved 32-bit float.
public struct AudioFormat: Sendable, Equatable {
    public var sampleRate: Int
    public var channelCount: Int

    public init(sampleRate: Int, channelCount: Int) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }
}

/// Audio to play: a whole clip, or chunks still being produced (streaming synthesis).
public enum AudioSource: Sendable {
    case clip(Clip)
    case stream(AudioFormat, AsyncThrowingStream<[Float], any Error>)

    public var format: AudioFormat {
        switch self {
        case .clip(let clip): AudioFormat(sampleRate: clip.sampleRate, channelCount: clip.channelCount)
        case .stream(let format, _): format
        }
    }

    /// The length when it is known up front.
    public var knownDurationMilliseconds: Int? {
        if case .clip(let clip) = self { return clip.durationMilliseconds }
        return nil
    }
}

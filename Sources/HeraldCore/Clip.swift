/// Decoded audio ready to play: interleaved 32-bit float samples.
public struct Clip: Sendable {
    public var sampleRate: Int
    public var channelCount: Int
    /// Interleaved samples in [-1, 1], `channelCount` per frame.
    public var samples: [Float]

    public init(sampleRate: Int, channelCount: Int, samples: [Float]) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.samples = samples
    }

    public var frameCount: Int { channelCount > 0 ? samples.count / channelCount : 0 }

    /// Length in milliseconds.
    public var durationMilliseconds: Int {
        sampleRate > 0 ? frameCount * 1000 / sampleRate : 0
    }
}

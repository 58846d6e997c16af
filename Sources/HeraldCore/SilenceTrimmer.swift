/// Drops near-silent samples at the start of a stream (a synthesizer's own lead-in is latency
/// nobody asked for) and, for whole clips, at the end.
public struct SilenceTrimmer: Sendable {
    /// Samples quieter than this count as silence (about -60 dBFS).
    public static let threshold: Float = 0.001
    private var heardSound = false
    let channelCount: Int

    public init(channelCount: Int) { self.channelCount = channelCount }

    /// Passes `chunk` on from the first frame with sound; returns nothing before it.
    public mutating func trimLeading(_ chunk: [Float]) -> [Float] {
        if heardSound { return chunk }
        guard let first = chunk.firstIndex(where: { abs($0) > Self.threshold }) else { return [] }
        heardSound = true
        let frameStart = first - first % max(channelCount, 1)
        return Array(chunk[frameStart...])
    }

    /// `clip` without silence at either end (a clip of only silence comes back empty).
    public static func trimmed(_ clip: Clip) -> Clip {
        let channels = max(clip.channelCount, 1)
        guard let first = clip.samples.firstIndex(where: { abs($0) > threshold }),
              let last = clip.samples.lastIndex(where: { abs($0) > threshold }) else {
            return Clip(sampleRate: clip.sampleRate, channelCount: clip.channelCount, samples: [])
        }
        let start = first - first % channels
        let end = min(clip.samples.count, last - last % channels + channels)
        return Clip(sampleRate: clip.sampleRate, channelCount: clip.channelCount, samples: Array(clip.samples[start..<end]))
    }
}

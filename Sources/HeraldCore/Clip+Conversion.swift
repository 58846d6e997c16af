extension Clip {
    /// This clip in another format: channels mixed down or copied, then resampled linearly.
    /// Good enough for joining short recorded clips and chimes to speech; not a mastering resampler.
    public func converted(to format: AudioFormat) -> Clip {
        if sampleRate == format.sampleRate && channelCount == format.channelCount { return self }
        let frames = frameCount
        var mono = [Float](repeating: 0, count: frames)
        for frame in 0..<frames {
            var sum: Float = 0
            for channel in 0..<channelCount { sum += samples[frame * channelCount + channel] }
            mono[frame] = sum / Float(max(channelCount, 1))
        }
        let outFrames = frames == 0 ? 0 : Int((Double(frames) * Double(format.sampleRate) / Double(sampleRate)).rounded())
        var resampled = [Float](repeating: 0, count: outFrames)
        let step = Double(sampleRate) / Double(format.sampleRate)
        for index in 0..<outFrames {
            let position = Double(index) * step
            let lower = min(Int(position), frames - 1), upper = min(lower + 1, frames - 1)
            let weight = Float(position - Double(lower))
            resampled[index] = mono[lower] * (1 - weight) + mono[upper] * weight
        }
        var out = [Float](repeating: 0, count: outFrames * format.channelCount)
        for index in 0..<outFrames {
            for channel in 0..<format.channelCount { out[index * format.channelCount + channel] = resampled[index] }
        }
        return Clip(sampleRate: format.sampleRate, channelCount: format.channelCount, samples: out)
    }

    /// Clips one after another with `gapMilliseconds` of silence between them, in `format`.
    public static func joined(_ clips: [Clip], gapMilliseconds: Int, format: AudioFormat) -> Clip {
        let gap = [Float](repeating: 0, count: format.sampleRate * gapMilliseconds / 1000 * format.channelCount)
        var samples: [Float] = []
        for (index, clip) in clips.enumerated() {
            if index > 0 { samples += gap }
            samples += clip.converted(to: format).samples
        }
        return Clip(sampleRate: format.sampleRate, channelCount: format.channelCount, samples: samples)
    }
}

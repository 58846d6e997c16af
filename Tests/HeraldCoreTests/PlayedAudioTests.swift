import HeraldCore
import Testing

/// What a playback was handed is what is kept for listening back: a clip whole, a stream chunk
/// by chunk, and a playback stopped early only as far as it was heard.
@Suite struct PlayedAudioTests {
    @Test func aStreamIsCollectedAsItIsHandedOn() async throws {
        let format = AudioFormat(sampleRate: 1000, channelCount: 2)
        let (chunks, continuation) = AsyncThrowingStream<[Float], any Error>.makeStream()
        let (source, played) = PlayedAudio.recording(.stream(format, chunks))
        continuation.yield([0.1, 0.2, 0.3, 0.4])
        continuation.yield([0.5, 0.6])
        continuation.finish()
        guard case .stream(let handedFormat, let handed) = source else { Issue.record("a stream stays a stream"); return }
        #expect(handedFormat == format)
        var heard: [Float] = []
        for try await chunk in handed { heard += chunk }
        #expect(heard == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], "the player gets every sample, in order")
        let kept = played.clip()
        #expect(kept.samples == heard && kept.sampleRate == 1000 && kept.channelCount == 2)
    }

    @Test func aClipIsKeptWholeOrAsFarAsItWasHeard() {
        let clip = Clip(sampleRate: 1000, channelCount: 1, samples: (0..<2000).map { Float($0) / 2000 })
        let (source, played) = PlayedAudio.recording(.clip(clip))
        #expect(source.knownDurationMilliseconds == 2000)
        #expect(played.clip().samples == clip.samples)
        #expect(played.clip(upTo: 500).samples == Array(clip.samples.prefix(500)), "stopped after half a second")
        #expect(played.clip(upTo: 9000).frameCount == 2000, "a report longer than the clip keeps it whole")
    }
}

import CPulse
import HeraldCore

/// Records a room's microphone at 8 kHz and hands on the level of each 100 ms block in the band
/// speech needs (`SpeechBandMeter`): a few hundred bytes a block, measured on arrival and
/// dropped. No audio is kept or sent anywhere.
public final class SourceMeter: RecordStream, @unchecked Sendable {
    private var meter = SpeechBandMeter()
    private let onBlock: @Sendable (SpeechBandMeter.Block) -> Void
    public let sourceName: String
    /// When it started recording: one that keeps recording a while is past its trouble.
    public let openedAt = ContinuousClock.now

    /// Starts recording `sourceName`; `onBlock` is called on PulseAudio's thread for every block.
    public init(connection: PulseConnection, sourceName: String,
                onBlock: @escaping @Sendable (SpeechBandMeter.Block) -> Void) throws {
        self.sourceName = sourceName
        self.onBlock = onBlock
        // 50 ms fragments: the server wakes Herald 20 times a second, not for every sample.
        // DONT_MOVE: if the microphone goes away the stream fails (and the room is told) rather
        // than being moved to whatever source is the default.
        try super.init(connection: connection, label: "Herald noise meter", source: sourceName, rate: SpeechBandMeter.sampleRate,
                       fragmentMicroseconds: 50_000, flags: pa_stream_flags_t(PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_DONT_MOVE.rawValue))
    }

    /// False once the stream failed or ended (the source went away, the server died).
    public var isRecording: Bool {
        connection.withLock {
            guard let stream else { return false }
            let state = pa_stream_get_state(stream)
            return state == PA_STREAM_READY || state == PA_STREAM_CREATING
        }
    }

    /// Stops recording. Also done on deinit.
    public override func close() { super.close() }

    override func received(_ samples: UnsafeBufferPointer<Float>, at: ContinuousClock.Instant) {
        for block in meter.feed(samples) { onBlock(block) }
    }
}

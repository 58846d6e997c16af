import CPulse
import HeraldCore

/// Records a room's microphone at 8 kHz and hands on the level of each 100 ms block in the band
/// speech needs (`SpeechBandMeter`): a few hundred bytes a block, measured on arrival and
/// dropped. No audio is kept or sent anywhere.
///
/// `@unchecked Sendable`: the C stream and the meter are touched only with the connection's
/// mainloop lock held or from the mainloop thread inside the read callback.
public final class SourceMeter: @unchecked Sendable {
    private let connection: PulseConnection
    private var stream: OpaquePointer?
    private var meter = SpeechBandMeter()
    private let onBlock: @Sendable (SpeechBandMeter.Block) -> Void
    public let sourceName: String
    /// When it started recording: one that keeps recording a while is past its trouble.
    public let openedAt = ContinuousClock.now

    /// Starts recording `sourceName`; `onBlock` is called on PulseAudio's thread for every block.
    public init(connection: PulseConnection, sourceName: String,
                onBlock: @escaping @Sendable (SpeechBandMeter.Block) -> Void) throws {
        self.connection = connection
        self.sourceName = sourceName
        self.onBlock = onBlock
        try connection.withLock {
            var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(SpeechBandMeter.sampleRate), channels: 1)
            guard let stream = pa_stream_new(connection.context, "Herald noise meter", &spec, nil) else {
                throw SoundSystemError.operationFailed("noise meter stream: \(PulseConnection.lastError(connection.context))")
            }
            self.stream = stream
            pa_stream_set_read_callback(stream, { stream, _, userdata in
                Unmanaged<SourceMeter>.fromOpaque(userdata!).takeUnretainedValue().read()
            }, Unmanaged.passUnretained(self).toOpaque())
            // 50 ms fragments: the server wakes Herald 20 times a second, not for every sample.
            let unset = UInt32.max
            var attributes = pa_buffer_attr(maxlength: unset, tlength: unset, prebuf: unset, minreq: unset,
                                            fragsize: UInt32(pa_usec_to_bytes(50_000, &spec)))
            // DONT_MOVE: if the microphone goes away the stream fails (and the room is told)
            // rather than being moved to whatever source is the default.
            let flags = pa_stream_flags_t(PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_DONT_MOVE.rawValue)
            if pa_stream_connect_record(stream, sourceName, &attributes, flags) < 0 {
                let reason = PulseConnection.lastError(connection.context)
                pa_stream_set_read_callback(stream, nil, nil)
                pa_stream_unref(stream)
                self.stream = nil
                throw SoundSystemError.operationFailed("noise meter on \(sourceName): \(reason)")
            }
        }
    }

    deinit { close() }

    /// False once the stream failed or ended (the source went away, the server died).
    public var isRecording: Bool {
        connection.withLock {
            guard let stream else { return false }
            let state = pa_stream_get_state(stream)
            return state == PA_STREAM_READY || state == PA_STREAM_CREATING
        }
    }

    /// Stops recording. Also done on deinit.
    public func close() {
        connection.withLock {
            guard let stream else { return }
            pa_stream_set_read_callback(stream, nil, nil)
            // One still connecting is not left recording with nobody reading it.
            PlaybackReaper.release(stream)
            self.stream = nil
        }
    }

    /// Runs on the mainloop thread.
    private func read() {
        guard let stream else { return }
        var data: UnsafeRawPointer?
        var length = 0
        while pa_stream_readable_size(stream) > 0 {
            guard pa_stream_peek(stream, &data, &length) == 0 else { return }
            if length == 0 { break }
            // A hole (data nil) is dropped unmeasured: nothing was heard in it.
            if let data {
                let samples = UnsafeBufferPointer(start: data.assumingMemoryBound(to: Float.self), count: length / 4)
                for block in meter.feed(samples) { onBlock(block) }
            }
            pa_stream_drop(stream)
        }
    }
}

import CPulse
import HeraldCore

/// A mono float32 record stream on one source, its samples handed to `received(_:at:)` on the
/// mainloop thread as they arrive: what the benchmark's ear (`MonitorProbe`) and a room's noise
/// meter (`SourceMeter`) share.
///
/// `@unchecked Sendable`: the C stream is touched only with the connection's mainloop lock held
/// or from the mainloop thread inside the read callback; subclasses keep to the same rule.
public class RecordStream: @unchecked Sendable {
    let connection: PulseConnection
    /// Nil once closed.
    var stream: OpaquePointer?

    /// Starts recording `source` at `rate`, the server waking it every `fragmentMicroseconds`.
    /// - Parameter label: names the stream in the server (`pactl list source-outputs`) and in errors.
    init(connection: PulseConnection, label: String, source: String, rate: Int, fragmentMicroseconds: UInt64,
         flags: pa_stream_flags_t) throws {
        self.connection = connection
        try connection.withLock {
            var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(rate), channels: 1)
            guard let stream = pa_stream_new(connection.context, label, &spec, nil) else {
                throw SoundSystemError.operationFailed("\(label): \(PulseConnection.lastError(connection.context))")
            }
            self.stream = stream
            pa_stream_set_read_callback(stream, { _, _, userdata in
                Unmanaged<RecordStream>.fromOpaque(userdata!).takeUnretainedValue().read()
            }, Unmanaged.passUnretained(self).toOpaque())
            let unset = UInt32.max
            var attributes = pa_buffer_attr(maxlength: unset, tlength: unset, prebuf: unset, minreq: unset,
                                            fragsize: UInt32(pa_usec_to_bytes(fragmentMicroseconds, &spec)))
            if pa_stream_connect_record(stream, source, &attributes, flags) < 0 {
                let reason = PulseConnection.lastError(connection.context)
                pa_stream_set_read_callback(stream, nil, nil)
                pa_stream_unref(stream)
                self.stream = nil
                throw SoundSystemError.operationFailed("\(label) on \(source): \(reason)")
            }
        }
    }

    deinit { close() }

    /// Stops recording; one still connecting is reaped, not left recording with nobody reading.
    /// Also done on deinit.
    func close() {
        connection.withLock {
            guard let stream else { return }
            pa_stream_set_read_callback(stream, nil, nil)
            PlaybackReaper.release(stream)
            self.stream = nil
        }
    }

    /// One chunk of samples, arrived at `at`; runs on the mainloop thread.
    func received(_ samples: UnsafeBufferPointer<Float>, at: ContinuousClock.Instant) {}

    private func read() {
        guard let stream else { return }
        var data: UnsafeRawPointer?
        var length = 0
        while pa_stream_readable_size(stream) > 0 {
            guard pa_stream_peek(stream, &data, &length) == 0 else { return }
            if length == 0 { break }
            // A hole (data nil) is dropped: nothing was recorded in it.
            if let data {
                received(UnsafeBufferPointer(start: data.assumingMemoryBound(to: Float.self), count: length / 4), at: ContinuousClock.now)
            }
            pa_stream_drop(stream)
        }
    }
}

import CPulse
import Foundation

/// The floor: the least a libpulse client can do to be heard. Its own mainloop and context, one
/// stream connected corked ahead of time; to speak, it writes the clip and uncorks, nothing else
/// (no safeguard, no log, no HTTP). Herald's figures are compared against it in the same run.
///
/// `@unchecked Sendable`: the C handles are touched only with the mainloop lock held.
final class BareWarmClient: @unchecked Sendable {
    private let mainloop: OpaquePointer
    private let context: OpaquePointer
    private var stream: OpaquePointer?
    private let sink: String

    init(sink: String) throws {
        self.sink = sink
        guard let mainloop = pa_threaded_mainloop_new(),
              let context = pa_context_new(pa_threaded_mainloop_get_api(mainloop), "bare warm client") else {
            throw BenchError("libpulse: cannot create a mainloop and a context")
        }
        self.mainloop = mainloop
        self.context = context
        guard pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0,
              pa_threaded_mainloop_start(mainloop) >= 0 else {
            throw BenchError("libpulse: cannot connect")
        }
        try waitFor("the context") { pa_context_get_state(context) == PA_CONTEXT_READY }
    }

    deinit {
        pa_threaded_mainloop_lock(mainloop)
        if let stream {
            pa_stream_disconnect(stream)
            pa_stream_unref(stream)
        }
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_threaded_mainloop_unlock(mainloop)
        pa_threaded_mainloop_stop(mainloop)
        pa_threaded_mainloop_free(mainloop)
    }

    /// Polls `condition` under the lock (setup only, not timed).
    private func waitFor(_ what: String, _ condition: () -> Bool) throws {
        for _ in 0..<1000 {
            pa_threaded_mainloop_lock(mainloop)
            let met = condition()
            pa_threaded_mainloop_unlock(mainloop)
            if met { return }
            usleep(2000)
        }
        throw BenchError("libpulse: \(what) did not become ready")
    }

    /// Connects a fresh corked stream in the clip's format (mono float32), replacing the last.
    func prepare(sampleRate: Int) throws {
        close()
        pa_threaded_mainloop_lock(mainloop)
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(sampleRate), channels: 1)
        let stream = pa_stream_new(context, "bare warm stream", &spec, nil)
        self.stream = stream
        let unset = UInt32.max
        // The same buffering as Herald's streams, so the comparison is of the work around them.
        var attributes = pa_buffer_attr(maxlength: unset, tlength: UInt32(pa_usec_to_bytes(2_000_000, &spec)),
                                        prebuf: UInt32(pa_usec_to_bytes(20_000, &spec)), minreq: unset, fragsize: unset)
        let connected = pa_stream_connect_playback(stream, sink, &attributes, PA_STREAM_START_CORKED, nil, nil)
        pa_threaded_mainloop_unlock(mainloop)
        guard connected >= 0, let stream else { throw BenchError("libpulse: cannot connect a stream to \(sink)") }
        try waitFor("the stream") { pa_stream_get_state(stream) == PA_STREAM_READY }
    }

    /// Disconnects the stream: an uncorked one, even drained, keeps the sink from suspending.
    func close() {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        guard let stream else { return }
        pa_stream_disconnect(stream)
        pa_stream_unref(stream)
        self.stream = nil
    }

    /// Writes `samples` and uncorks: the timed part.
    func speak(_ samples: [Float]) {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        guard let stream else { return }
        samples.withUnsafeBytes { bytes in
            _ = pa_stream_write(stream, bytes.baseAddress, bytes.count, nil, 0, PA_SEEK_RELATIVE)
        }
        if let operation = pa_stream_cork(stream, 0, nil, nil) { pa_operation_unref(operation) }
    }
}

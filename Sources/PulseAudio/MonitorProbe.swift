import CPulse
import HeraldCore

/// Listens to a sink's `.monitor` source and tells when sound first appears: the benchmark's ear.
///
/// `@unchecked Sendable`: the C stream and every field are touched only with the connection's
/// mainloop lock held or from the mainloop thread inside the read callback.
public final class MonitorProbe: @unchecked Sendable {
    private let connection: PulseConnection
    private var stream: OpaquePointer?
    private var waiter: CheckedContinuation<ContinuousClock.Instant, any Error>?
    private var threshold: Float = 0.001
    private var armed = false
    private var resting = false
    /// The first loud moment since `arm`, kept until `heard()` asks.
    private var detected: ContinuousClock.Instant?
    /// Why `arm` could not start recording again, for `heard()` to throw.
    private var armFailure: SoundSystemError?
    /// When the last sample above the threshold arrived.
    private var lastLoud = ContinuousClock.now
    static let rate = 48_000

    /// Starts recording `sinkName.monitor` (mono float, 2 ms fragments).
    public init(connection: PulseConnection, sinkName: String) async throws {
        self.connection = connection
        try connection.withLock {
            var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(Self.rate), channels: 1)
            guard let stream = pa_stream_new(connection.context, "Herald monitor probe", &spec, nil) else {
                throw SoundSystemError.operationFailed("probe stream: \(PulseConnection.lastError(connection.context))")
            }
            self.stream = stream
            pa_stream_set_read_callback(stream, { stream, _, userdata in
                Unmanaged<MonitorProbe>.fromOpaque(userdata!).takeUnretainedValue().read()
            }, Unmanaged.passUnretained(self).toOpaque())
            let unset = UInt32.max
            var attributes = pa_buffer_attr(maxlength: unset, tlength: unset, prebuf: unset, minreq: unset,
                                            fragsize: UInt32(pa_usec_to_bytes(2_000, &spec)))
            if pa_stream_connect_record(stream, "\(sinkName).monitor", &attributes, PA_STREAM_ADJUST_LATENCY) < 0 {
                throw SoundSystemError.operationFailed("probe on \(sinkName).monitor: \(PulseConnection.lastError(connection.context))")
            }
        }
    }

    deinit { close() }

    /// Stops recording. Also done on deinit.
    public func close() {
        connection.withLock {
            guard let stream else { return }
            pa_stream_set_read_callback(stream, nil, nil)
            PlaybackReaper.release(stream)
            self.stream = nil
        }
    }

    /// Waits until the monitor has carried nothing above `threshold` for `quiet`.
    public func waitForSilence(_ quiet: Duration = .milliseconds(300), timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now - connection.withLock({ lastLoud }) < quiet {
            guard ContinuousClock.now < deadline else { throw SoundSystemError.timedOut("silence on the monitor") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Arms the probe; `heard()` then returns when the first sample above `threshold` arrives.
    /// A resting probe starts recording again first.
    public func arm(threshold: Float = 0.001) {
        connection.withLock {
            self.threshold = threshold
            detected = nil
            armFailure = nil
            armed = true
            if resting, let stream {
                do throws(SoundSystemError) {
                    try PulseOperation.send("uncork the probe", on: stream, pa_stream_cork(stream, 0, nil, nil))
                    resting = false
                } catch {
                    armFailure = error
                }
            }
        }
    }

    /// Stops recording until the next `arm` (corked): a recording monitor keeps its sink from
    /// suspending, and the suspended-sink figures need the sink to suspend between runs.
    public func rest() {
        connection.withLock {
            guard !resting, let stream else { return }
            // Refused, it goes on recording; the next `arm` has nothing to uncork.
            resting = (try? PulseOperation.send("cork the probe", on: stream, pa_stream_cork(stream, 1, nil, nil))) != nil
        }
    }

    /// The moment the first loud sample after `arm` was rendered (the chunk's arrival time,
    /// corrected for the samples after it in the chunk).
    public func heard(timeout: Duration = .seconds(10)) async throws -> ContinuousClock.Instant {
        let watchdog = Task { [connection] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            connection.withLock { self.resume(.failure(SoundSystemError.timedOut("no sound on the monitor within \(timeout)"))) }
        }
        defer { watchdog.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            connection.withLock {
                waiter = continuation
                if let armFailure { resume(.failure(armFailure)) } else if let detected { resume(.success(detected)) }
            }
        }
    }

    private func resume(_ result: Result<ContinuousClock.Instant, any Error>) {
        guard let waiter else { return }
        self.waiter = nil
        armed = false
        detected = nil
        waiter.resume(with: result)
    }

    /// Runs on the mainloop thread.
    private func read() {
        guard let stream else { return }
        var data: UnsafeRawPointer?
        var length = 0
        while pa_stream_readable_size(stream) > 0 {
            guard pa_stream_peek(stream, &data, &length) == 0 else { return }
            if length == 0 { break }
            let now = ContinuousClock.now
            if let data {
                let samples = UnsafeBufferPointer(start: data.assumingMemoryBound(to: Float.self), count: length / 4)
                if let first = samples.firstIndex(where: { abs($0) > threshold }) {
                    lastLoud = now
                    if armed && detected == nil {
                        let after = samples.count - first
                        detected = now - .microseconds(after * 1_000_000 / Self.rate)
                        if let detected { resume(.success(detected)) }
                    }
                }
            }
            pa_stream_drop(stream)
        }
    }
}

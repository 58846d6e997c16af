import CPulse
import HeraldCore

/// Listens to a sink's `.monitor` source and tells when sound first appears: the benchmark's ear.
///
/// `@unchecked Sendable`: every field is touched only with the connection's mainloop lock held
/// or from the mainloop thread inside `received`.
public final class MonitorProbe: RecordStream, @unchecked Sendable {
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
        try super.init(connection: connection, label: "Herald monitor probe", source: "\(sinkName).monitor", rate: Self.rate,
                       fragmentMicroseconds: 2_000, flags: PA_STREAM_ADJUST_LATENCY)
    }

    /// Stops recording. Also done on deinit.
    public override func close() { super.close() }

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

    /// Runs on the mainloop thread: the chunk's arrival time, corrected for the samples after
    /// the first loud one.
    override func received(_ samples: UnsafeBufferPointer<Float>, at now: ContinuousClock.Instant) {
        guard let first = samples.firstIndex(where: { abs($0) > threshold }) else { return }
        lastLoud = now
        if armed && detected == nil {
            let after = samples.count - first
            detected = now - .microseconds(after * 1_000_000 / Self.rate)
            if let detected { resume(.success(detected)) }
        }
    }
}

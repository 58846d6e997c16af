import UnixSignals

/// Turns SIGINT and SIGTERM into cancellation of one piece of work, so playback fades out and the
/// safeguard restores before the process exits.
enum SignalCanceller {
    /// Runs `work`, cancelling it on SIGINT or SIGTERM. The signals are trapped before `work`
    /// starts, so a Ctrl-C can never kill the process between a change to the sink and its restore.
    static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let task = Task { try await work() }
        let listener = Task {
            for await _ in signals { task.cancel() }
        }
        defer { listener.cancel() }
        return try await task.value
    }
}

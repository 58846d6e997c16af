import UnixSignals

/// Turns SIGINT and SIGTERM into cancellation of one task, so playback fades out and the
/// safeguard restores before the process exits.
struct SignalCanceller {
    private let listener: Task<Void, Never>

    init<T: Sendable>(task: Task<T, any Error>) {
        listener = Task {
            for await _ in await UnixSignalsSequence(trapping: .sigint, .sigterm) { task.cancel() }
        }
    }

    func stop() { listener.cancel() }
}

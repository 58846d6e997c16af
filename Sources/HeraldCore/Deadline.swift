import Synchronization

/// Runs `operation` with a deadline: past `limit`, `timeoutError()` is thrown and `operation`'s
/// task is cancelled. One limit for the whole of it, however slowly it makes progress (a body
/// dripping a byte at a time), unlike timeouts that restart with each read.
///
/// The caller gets its answer at the deadline (or at once when it is cancelled) even when
/// `operation` does not end on cancellation: it runs on, unawaited, its result dropped. (A task
/// group would wait for it, and postgres-nio has a query that never ends: one written to a
/// connection as it closes; nor does it stop a query on cancellation.) So work that must not
/// half-happen after its caller gave up checks for cancellation before it commits.
public func withDeadline<T: Sendable>(_ limit: Duration, timeoutError: @escaping @Sendable () -> any Error,
                                      _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let race = DeadlineRace<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            guard race.wait(continuation) else { return }
            race.hold([
                Task {
                    do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
                },
                Task { if (try? await Task.sleep(for: limit)) != nil { race.finish(.failure(timeoutError())) } },
            ])
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The operation, the timer and the caller's cancellation race; the first to finish answers the
/// caller and cancels the other two.
private final class DeadlineRace<T: Sendable>: Sendable {
    private struct State: ~Copyable {
        var continuation: CheckedContinuation<T, any Error>?
        var outcome: Result<T, any Error>?
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Holds the caller's continuation; false (and the continuation resumed) when the race was
    /// over before it began (the caller was cancelled first).
    func wait(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
        let outcome: Result<T, any Error>? = state.withLock { state in
            if let outcome = state.outcome { return outcome }
            state.continuation = continuation
            return nil
        }
        guard let outcome else { return true }
        continuation.resume(with: outcome)
        return false
    }

    /// The racing tasks, cancelled at once if the race ended while they were being made.
    func hold(_ tasks: [Task<Void, Never>]) {
        let over = state.withLock { state in
            if state.outcome != nil { return true }
            state.tasks = tasks
            return false
        }
        if over { tasks.forEach { $0.cancel() } }
    }

    /// The first call answers the caller; later ones change nothing.
    func finish(_ outcome: Result<T, any Error>) {
        let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) in
            guard state.outcome == nil else { return (nil, []) }
            state.outcome = outcome
            defer { state.continuation = nil; state.tasks = [] }
            return (state.continuation, state.tasks)
        }
        tasks.forEach { $0.cancel() }
        continuation?.resume(with: outcome)
    }
}

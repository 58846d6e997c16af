/// One job at a time, in order of arrival, for an actor whose read-decide-write spans awaits.
///
/// An actor is reentrant: while one job awaits, another may read the state it is about to
/// replace. A job run through `serially` starts only when every earlier one has finished, so each
/// reads, decides and writes as one step (the safeguard's and the reminders' rule). Owned by one
/// actor and only used on it (`nonisolated(nonsending)`: it runs on the caller's executor).
public final class SerialJobs {
    /// True while a job runs; the others wait here, in order of arrival.
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init() {}

    /// Runs `body` when every earlier job has finished.
    nonisolated(nonsending) public func serially<T>(_ body: nonisolated(nonsending) () async throws -> T) async rethrows -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        }
        busy = true
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}

/// Runs `operation` with a deadline: past `limit` it is cancelled and `timeoutError()` is thrown.
/// One limit for the whole of it, however slowly it makes progress (a body dripping a byte at a
/// time), unlike timeouts that restart with each read.
public func withDeadline<T: Sendable>(_ limit: Duration, timeoutError: @escaping @Sendable () -> any Error,
                                      _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw timeoutError()
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        return first
    }
}

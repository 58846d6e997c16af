import Foundation
import Synchronization

/// The time of day as a test sets it: pass `now.read` where a type takes a `now` closure and
/// `now.sleep` where it takes a sleep, then move it with `advance(by:)` or `set(_:)`. Nothing
/// waits on the wall clock: a sleeper wakes when the time is moved past its deadline.
/// ```swift
/// let now = ManualNow(Date(timeIntervalSince1970: 1_795_563_000))
/// let daemon = AnnouncementDaemon(context: context, connector: connector, now: now.read, sleep: now.sleep)
/// now.advance(by: 8 * 3600)
/// ```
public final class ManualNow: Sendable {
    private struct State {
        var now: Date
        var sleepers: [UUID: (deadline: Date, continuation: CheckedContinuation<Void, any Error>)] = [:]
    }

    private let state: Mutex<State>

    public init(_ start: Date) { state = Mutex(State(now: start)) }

    /// The time now, as set.
    public var value: Date { state.withLock { $0.now } }

    /// A closure reading it, for a `now:` parameter.
    public var read: @Sendable () -> Date { { [self] in value } }

    /// A closure sleeping on it, for a `sleep:` parameter.
    public var sleep: @Sendable (Duration) async throws -> Void { { [self] in try await sleep(for: $0) } }

    /// How many sleepers wait for the time to move: a test waits for the code under test to be
    /// asleep before it moves the time.
    public var sleeping: Int { state.withLock { $0.sleepers.count } }

    public func set(_ date: Date) {
        let due = state.withLock { state in
            state.now = date
            let due = state.sleepers.filter { $0.value.deadline <= date }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    public func advance(by seconds: TimeInterval) { set(value.addingTimeInterval(seconds)) }

    /// Returns once the time is moved `duration` past now; throws `CancellationError` when the
    /// task is cancelled first.
    public func sleep(for duration: Duration) async throws {
        let id = UUID()
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    // Cancelled before it could be registered: the handler below found nothing to end.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    let deadline = state.now.addingTimeInterval(seconds)
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = (deadline, continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let continuation = state.withLock { $0.sleepers.removeValue(forKey: id)?.continuation }
            continuation?.resume(throwing: CancellationError())
        }
    }
}

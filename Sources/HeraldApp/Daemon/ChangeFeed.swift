import Foundation
import Synchronization

/// Tells every listener that something an admin sees changed (an announcement queued, started,
/// logged; the queue paused), so the admin page's event stream sends a fresh status instead of
/// the page polling. Signals coalesce: a listener that is behind gets one, not a backlog.
public final class ChangeFeed: Sendable {
    /// One lock for both: a subscriber that looked at `finished` under one lock and added itself
    /// under another could come in after `finish()` emptied the list, and never be ended.
    private let state = Mutex<(finished: Bool, listeners: [UUID: AsyncStream<Void>.Continuation])>((false, [:]))

    public init() {}

    /// A stream of change signals, ended by `finish()` (the daemon stopping).
    public func subscribe() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        let added = state.withLock { state in
            guard !state.finished else { return false }
            state.listeners[id] = continuation
            return true
        }
        guard added else {
            continuation.finish()
            return stream
        }
        // Set outside the lock: a stream already ended runs it at once, and it takes the lock.
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) } }
        return stream
    }

    public func signal() {
        for continuation in state.withLock({ Array($0.listeners.values) }) { continuation.yield() }
    }

    /// Ends every stream, so long-lived responses close and a graceful stop is not held up.
    public func finish() {
        let ending = state.withLock { state in
            state.finished = true
            defer { state.listeners = [:] }
            return Array(state.listeners.values)
        }
        for continuation in ending { continuation.finish() }
    }

    /// How many streams are open, for tests.
    var listenerCount: Int { state.withLock { $0.listeners.count } }
}

import Foundation
import Synchronization

/// Tells every listener that something an admin sees changed (an announcement queued, started,
/// logged; the queue paused), so the admin page's event stream sends a fresh status instead of
/// the page polling. Signals coalesce: a listener that is behind gets one, not a backlog.
public final class ChangeFeed: Sendable {
    private let listeners = Mutex<[UUID: AsyncStream<Void>.Continuation]>([:])
    private let finished = Mutex(false)

    public init() {}

    /// A stream of change signals, ended by `finish()` (the daemon stopping).
    public func subscribe() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        if finished.withLock({ $0 }) {
            continuation.finish()
            return stream
        }
        listeners.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.listeners.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    public func signal() {
        for continuation in listeners.withLock({ Array($0.values) }) { continuation.yield() }
    }

    /// Ends every stream, so long-lived responses close and a graceful stop is not held up.
    public func finish() {
        finished.withLock { $0 = true }
        for continuation in listeners.withLock({ list in defer { list = [:] }; return Array(list.values) }) { continuation.finish() }
    }
}

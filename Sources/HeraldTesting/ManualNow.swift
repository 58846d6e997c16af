import Foundation
import Synchronization

/// The time of day as a test sets it: pass `now.read` where a type takes a `now` closure, then
/// move it with `advance(by:)` or `set(_:)`. Nothing sleeps.
/// ```swift
/// let now = ManualNow(Date(timeIntervalSince1970: 1_795_563_000))
/// let daemon = AnnouncementDaemon(context: context, connector: connector, now: now.read)
/// now.advance(by: 8 * 3600)
/// ```
public final class ManualNow: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date) { current = Mutex(start) }

    /// The time now, as set.
    public var value: Date { current.withLock { $0 } }

    /// A closure reading it, for a `now:` parameter.
    public var read: @Sendable () -> Date { { [self] in value } }

    public func set(_ date: Date) { current.withLock { $0 = date } }

    public func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

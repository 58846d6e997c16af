import Synchronization

/// The context in force now, shared by the daemon's parts: a reload swaps it for all of them at
/// once, the API's tokens and limits included.
public final class LiveContext: Sendable {
    private let current: Mutex<HeraldContext>

    public init(_ context: HeraldContext) { current = Mutex(context) }

    public var value: HeraldContext { current.withLock { $0 } }

    public func replace(with context: HeraldContext) { current.withLock { $0 = context } }
}

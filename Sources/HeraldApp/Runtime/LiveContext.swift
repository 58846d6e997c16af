import Foundation
import Synchronization

/// The context in force now, shared by the daemon's parts: a reload swaps it for all of them at
/// once, the API's tokens and limits included.
public final class LiveContext: Sendable {
    private let current: Mutex<(context: HeraldContext, loadedAt: Date)>

    public init(_ context: HeraldContext) { current = Mutex((context, Date())) }

    public var value: HeraldContext { current.withLock { $0.context } }

    /// When the config in force was loaded: at start, or by the last reload that took.
    public var loadedAt: Date { current.withLock { $0.loadedAt } }

    public func replace(with context: HeraldContext) { current.withLock { $0 = (context, Date()) } }
}

import Foundation
import Synchronization

/// The context in force now, shared by the daemon's parts: a reload swaps it for all of them at
/// once, the API's tokens and limits included. The one holder of the config: the queue reads it
/// when told of a reload (`AnnouncementDaemon.configChanged`), the edges per request.
public final class LiveContext: Sendable {
    private let current: Mutex<(context: HeraldContext, loadedAt: Date, generation: Int)>

    public init(_ context: HeraldContext) { current = Mutex((context, Date(), 0)) }

    public var value: HeraldContext { current.withLock { $0.context } }

    /// When the config in force was loaded: at start, or by the last reload that took.
    public var loadedAt: Date { current.withLock { $0.loadedAt } }

    /// The context in force with its generation (0 at start, one more per reload), so a reader
    /// that keeps what it built from one knows when to build again.
    public var snapshot: (context: HeraldContext, generation: Int) {
        current.withLock { ($0.context, $0.generation) }
    }

    public func replace(with context: HeraldContext) {
        current.withLock { $0 = (context, Date(), $0.generation + 1) }
    }
}

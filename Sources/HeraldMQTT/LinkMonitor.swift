import Foundation
import HeraldApp
import Synchronization

/// The link's state as the loop reports it, read by `/v1/status` at any time.
public final class LinkMonitor: Sendable {
    private let status: Mutex<LinkStatus>

    init(_ initial: LinkStatus) { status = Mutex(initial) }

    /// The state now.
    public func snapshot() -> LinkStatus { status.withLock { $0 } }

    func update(_ change: (inout LinkStatus) -> Void) { status.withLock { change(&$0) } }

    func moved(to state: LinkStatus.State, error: String? = nil, retryIn: Duration? = nil) {
        update { status in
            if status.state != state { status.since = Date() }
            status.state = state
            if let error { status.lastError = error }
            status.retryInSeconds = retryIn.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
        }
    }
}

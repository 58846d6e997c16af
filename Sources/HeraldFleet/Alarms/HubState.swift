import Foundation

/// How the fleet console sees a hub: `online`, `stale` (a heartbeat is late) or `offline` (its
/// last will, a clean stop, or no heartbeat for 3 intervals).
public enum HubState: String, Codable, Sendable, CaseIterable {
    case online, stale, offline
}

/// What the console knows of a hub's presence, and the state it makes of it. Times are the
/// console's (when it received each message), except for a retained heartbeat handed over when
/// the console subscribed: that one is as old as the hub's own `at` says (never later than received).
public struct HubPresence: Sendable, Equatable {
    /// The last `herald/<hub>/status`: `online` or `offline`; nil when none was seen.
    public var status: String?
    public var statusAt: Date?
    /// When the last heartbeat arrived; nil for a hub that never sent one (an older Herald).
    public var healthAt: Date?
    /// The heartbeat's interval, as the hub announced it.
    public var intervalSeconds: Int

    public init(status: String?, statusAt: Date?, healthAt: Date?, intervalSeconds: Int) {
        self.status = status
        self.statusAt = statusAt
        self.healthAt = healthAt
        self.intervalSeconds = max(1, intervalSeconds)
    }

    /// A late heartbeat makes a hub stale after 1.5 intervals, offline after 3.
    public static let staleAfterIntervals = 1.5
    public static let offlineAfterIntervals = 3.0

    /// The state at `now`, and since when it holds.
    public func state(at now: Date) -> (state: HubState, since: Date?) {
        if status == "offline" { return (.offline, statusAt) }
        guard let healthAt else {
            // No heartbeat ever: only the status speaks (an older hub, or one whose first beat is still to come).
            return (status == "online" ? .online : .offline, statusAt)
        }
        let interval = Double(intervalSeconds)
        let offlineFrom = healthAt.addingTimeInterval(interval * Self.offlineAfterIntervals)
        if now >= offlineFrom { return (.offline, offlineFrom) }
        let staleFrom = healthAt.addingTimeInterval(interval * Self.staleAfterIntervals)
        if now >= staleFrom { return (.stale, staleFrom) }
        // Online since the status said so, or since the heartbeat that followed a silence.
        return (.online, [statusAt, healthAt].compactMap { $0 }.min())
    }
}

import Foundation

/// The MQTT link as `/v1/status` and `herald status` show it.
public struct LinkStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        /// The first attempt is under way.
        case connecting
        case connected
        /// The broker is away or refused: the next attempt comes after `retryInSeconds`.
        case waiting
        case stopped
    }

    /// `mqtt://host:port`, without credentials.
    public var broker: String
    public var hub: String
    public var clientID: String
    public var state: State
    public var since: Date
    /// Why the last attempt or connection failed.
    public var lastError: String?
    public var retryInSeconds: Double?
    public var subscriptions: [String]
    /// Messages taken from the broker, and events published back, since the daemon started.
    public var received = 0
    public var eventsPublished = 0

    public init(broker: String, hub: String, clientID: String, subscriptions: [String], since: Date = Date()) {
        self.broker = broker
        self.hub = hub
        self.clientID = clientID
        self.state = .connecting
        self.since = since
        self.subscriptions = subscriptions
    }

    /// One line for `herald status`.
    public var text: String {
        let head = "mqtt: \(broker) as \(hub) (client \(clientID)): \(state.rawValue)"
        switch state {
        case .connected: return head + ", \(received) received, \(eventsPublished) events published"
        case .waiting:
            let retry = retryInSeconds.map { String(format: ", retry in %.1f s", $0) } ?? ""
            return head + (lastError.map { ": \($0)" } ?? "") + retry
        case .connecting, .stopped: return head
        }
    }
}

import Foundation

/// `mqtt:`: the outbound link of a hub behind NAT to a broker (DESIGN.md "Reaching hubs").
/// Off (nil in `HeraldConfiguration.mqtt`) unless `mqtt.broker` is set.
public struct MQTTSettings: Sendable, Equatable {
    public var host: String
    public var port: Int
    /// `mqtts://`: TLS, checked against `caFile` (or the system's certificates).
    public var tls: Bool
    /// The hub's name in its topics: `herald/<hub>/announce`, `/events`, `/status`.
    public var hub: String
    /// The broker keeps this client's session (subscriptions, QoS 1 messages) while it is away.
    public var clientID: String
    /// Each group adds `herald/groups/<group>/announce`: one publish reaches every hub in it.
    public var groups: [String] = []
    public var username: String?
    public var password: String?
    /// A client certificate and its key (PEM files), instead of or beside a password.
    public var certificateFile: String?
    public var keyFile: String?
    /// The CA certificates that sign the broker's (PEM); nil uses the system's.
    public var caFile: String?
    public var keepalive: Duration = .seconds(30)
    /// How long the broker keeps this client's session (its subscriptions and QoS 1 messages) while
    /// it is away. A hub's is never-ending ("never": MQTT 3.1.1's `clean_session` false), so what
    /// is sent to it while it is off waits for it (bounded by the broker's own
    /// `persistent_client_expiration`).
    public var sessionExpiry: UInt32 = .max
    /// The largest packet this client takes (MQTT 5's Maximum Packet Size, sent when connecting):
    /// the broker drops a larger message for it rather than deliver it. Nil: no limit asked.
    public var maximumPacketSize: UInt32?
    /// How often the retained heartbeat `herald/<hub>/health` goes out (and at once on a change).
    public var healthInterval: Duration = .seconds(60)

    public init(host: String, port: Int, tls: Bool, hub: String) {
        self.host = host
        self.port = port
        self.tls = tls
        self.hub = hub
        self.clientID = hub
    }

    /// The broker as the config wrote it, without credentials: for logs and `/v1/status`.
    public var brokerURL: String { "\(tls ? "mqtts" : "mqtt")://\(host):\(port)" }

    public var announceTopic: String { "herald/\(hub)/announce" }
    public var eventsTopic: String { "herald/\(hub)/events" }
    public var statusTopic: String { "herald/\(hub)/status" }
    public var healthTopic: String { "herald/\(hub)/health" }
    public func groupTopic(_ group: String) -> String { "herald/groups/\(group)/announce" }
    /// The topics of `buttons:` that come over MQTT (zigbee2mqtt's `zigbee2mqtt/<name>`): their
    /// messages are presses, never announcements.
    public var buttonTopics: [String] = []
    /// Every topic the hub subscribes to.
    public var subscriptions: [String] { [announceTopic] + groups.map(groupTopic) + buttonTopics }

    /// A topic level Herald may use as a hub or group name: no MQTT wildcards or separators.
    public static func isTopicName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
    }
}

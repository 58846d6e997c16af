import Foundation
import HeraldCore

/// `fleet:`: the console of many hubs, `herald fleet serve` (docs/fleet.md). Off (nil in
/// `HeraldConfiguration.fleet`) unless `fleet.database` is set.
public struct FleetSettings: Sendable, Equatable {
    /// Where PostgreSQL is: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`.
    public struct Database: Sendable, Equatable {
        public var host: String
        public var port: Int
        public var user: String
        public var password: String?
        public var name: String

        public init(host: String, port: Int = 5432, user: String, password: String? = nil, name: String) {
            self.host = host
            self.port = port
            self.user = user
            self.password = password
            self.name = name
        }

        /// The address without the password: for logs and `/v1/status`.
        public var description: String { "postgres://\(user)@\(host):\(port)/\(name)" }
    }

    /// What a token of `fleet.tokens` may do on the console's API.
    public enum Role: String, Sendable, Equatable {
        /// The page and every `GET`: hubs, alarms, chart, metrics.
        case read
        /// Also acknowledges alarms and sends test announcements (`critical` ones too) to hubs.
        case operate
    }

    /// The broker the hubs publish to; its `hub` is the console's name, `clientID` its session.
    public var broker: MQTTSettings
    public var database: Database
    public var listenHost = "127.0.0.1"
    public var listenPort = 7380
    /// `fleet.tokens`: token -> role. Empty: no token asked, and only a loopback address may be
    /// bound (`fleet.listen`), as the hub's own API.
    public var tokens: [String: Role] = [:]
    /// `fleet.tls_cert` and `fleet.tls_key` (PEM files): the page and API are served over HTTPS.
    public var tls: TLSFiles?

    /// A certificate (chain) and its private key, PEM files.
    public struct TLSFiles: Sendable, Equatable {
        public var certificate: String
        public var key: String
    }
    /// This console's name: its MQTT client id is `herald-fleet-<name>`, and alarms say who opened
    /// them. Without `fleet.name`, the host's name and the process id (unique on the machine).
    public var name: String
    public var alarms = AlarmThresholds()
    /// Where an alarm's opening and closing are POSTed; nil: shown on the page only.
    public var webhook: String?
    /// Events older than this are deleted.
    public var eventsRetention: Duration = .seconds(30 * 86_400)

    /// `fleet.share_group`: every console of the fleet joins this shared subscription group, so
    /// each message reaches one of them. A secret of the consoles: a client that joins the group
    /// (a hub's credentials can) is handed a share of every hub's messages, which then never
    /// reach a console. The default keeps older consoles' group.
    public var shareGroup = FleetSettings.defaultShareGroup
    public static let defaultShareGroup = "herald-fleet"

    /// The topics a console subscribes to: every hub's status, heartbeat and events, shared.
    public var subscriptions: [String] { ["status", "health", "events"].map { "$share/\(shareGroup)/herald/+/\($0)" } }

    public init(broker: MQTTSettings, database: Database, name: String) {
        self.broker = broker
        self.database = database
        self.name = name
    }

    /// Whether `listenHost` is reachable from this machine only.
    public var isLoopback: Bool { listenHost == "localhost" || listenHost == "::1" || listenHost.hasPrefix("127.") }

    public var listenURL: String { "\(tls == nil ? "http" : "https")://\(listenHost.contains(":") ? "[\(listenHost)]" : listenHost):\(listenPort)" }
}

import Foundation
import HeraldConfig
import Testing

/// `fleet:` (the console) and `mqtt.health_interval` (the hub's heartbeat).
@Suite struct FleetConfigTests {
    @Test func theConsolesShapeIsRead() async throws {
        let folder = try ConfigFolder()
        let configuration = try await folder.load(.utf8("""
            mqtt:
              broker: mqtt://127.0.0.1:1883
              hub: care-0042
              health_interval: 15s
            fleet:
              broker: mqtt://broker.example:1884
              username: console
              password: secret
              database: postgres://herald:pw@db.example:5433/herald_fleet
              listen: 0.0.0.0:7390
              name: console-a
              share_group: 6f1d0c2a9b7e4f35
              tokens:
                reader-0123456789abcdef: read
                operator-0123456789abcdef: Operate
              events_retention: 7d
              alarms:
                offline_after: 2m
                unacknowledged_after: 10m
                low_disk: 1GB
                webhook: https://ops.example/alarms
            """))
        #expect(configuration.mqtt?.healthInterval == .seconds(15))
        #expect(configuration.mqtt?.healthTopic == "herald/care-0042/health")
        let fleet = try #require(configuration.fleet)
        #expect(fleet.broker.host == "broker.example" && fleet.broker.port == 1884 && !fleet.broker.tls)
        #expect(fleet.broker.username == "console" && fleet.broker.password == "secret")
        #expect(fleet.broker.clientID == "herald-fleet-console-a")
        // Named: its broker session waits 60 s for a killed console to come back (issue 44).
        #expect(fleet.broker.sessionExpiry == 60)
        #expect(fleet.database == FleetSettings.Database(host: "db.example", port: 5433, user: "herald", password: "pw", name: "herald_fleet"))
        #expect(fleet.database.description == "postgres://herald@db.example:5433/herald_fleet")
        #expect(fleet.listenHost == "0.0.0.0" && fleet.listenPort == 7390)
        #expect(fleet.subscriptions.allSatisfy { $0.hasPrefix("$share/6f1d0c2a9b7e4f35/herald/+/") })
        #expect(fleet.tokens == ["reader-0123456789abcdef": .read, "operator-0123456789abcdef": .operate])
        #expect(fleet.tls == nil && fleet.listenURL == "http://0.0.0.0:7390")
        #expect(fleet.alarms.offlineAfter == 120 && fleet.alarms.unacknowledgedAfter == 600)
        #expect(fleet.alarms.lowDiskBytes == 1_000_000_000)
        #expect(fleet.webhook == "https://ops.example/alarms")
        #expect(fleet.eventsRetention == .seconds(7 * 86_400))
    }

    @Test func theDefaultsAreTheDocumentedOnes() async throws {
        let folder = try ConfigFolder()
        let configuration = try await folder.load(.utf8("""
            mqtt:
              broker: mqtt://127.0.0.1
            fleet:
              broker: mqtt://127.0.0.1
              database: postgres://herald@127.0.0.1/herald_fleet
            """))
        #expect(configuration.mqtt?.healthInterval == .seconds(60))
        let fleet = try #require(configuration.fleet)
        #expect(fleet.listenURL == "http://127.0.0.1:7380")
        #expect(fleet.database.port == 5432 && fleet.database.password == nil)
        #expect(fleet.alarms.offlineAfter == 300)
        #expect(fleet.webhook == nil)
        #expect(fleet.tokens.isEmpty && fleet.tls == nil)
        // Unnamed: unique on the machine (the host and this process), so two never share a client id.
        #expect(fleet.name.hasSuffix("-\(ProcessInfo.processInfo.processIdentifier)") && fleet.broker.clientID == "herald-fleet-" + fleet.name)
        // Nor a session: its next start has another id, and a session left behind would take a share of every message.
        #expect(fleet.broker.sessionExpiry == 0)
        #expect(fleet.subscriptions == ["$share/herald-fleet/herald/+/status", "$share/herald-fleet/herald/+/health",
                                                "$share/herald-fleet/herald/+/events"])
        #expect(try await folder.load(.utf8("sink: a\n")).fleet == nil)
    }

    static let bad: [BadConfig] = [
        BadConfig("a database that is not a PostgreSQL address", "fleet:\n  broker: mqtt://b\n  database: mysql://x@y/z\n", line: 3,
                  key: "fleet.database", says: "is not a PostgreSQL address; write it like postgres://herald@127.0.0.1:5432/herald_fleet"),
        BadConfig("a database without its name", "fleet:\n  broker: mqtt://b\n  database: postgres://x@y\n", line: 3,
                  key: "fleet.database", says: "(user, host and database)"),
        BadConfig("no broker", "fleet:\n  database: postgres://x@y/z\n", line: nil,
                  key: "fleet.broker", says: "the console needs the hubs' broker"),
        BadConfig("a broker that is not MQTT", "fleet:\n  broker: http://b\n  database: postgres://x@y/z\n", line: 2,
                  key: "fleet.broker", says: "credentials go in fleet.username and fleet.password"),
        BadConfig("a broker without a database", "fleet:\n  broker: mqtt://b\n", line: 2,
                  key: "fleet.broker", says: "has no effect without fleet.database"),
        BadConfig("a webhook that is not http", "fleet:\n  broker: mqtt://b\n  database: postgres://x@y/z\n  alarms:\n    webhook: ftp://x\n",
                  line: 5, key: "fleet.alarms.webhook", says: "is not an http(s) URL"),
        BadConfig("an offline time that is not a duration", "fleet:\n  broker: mqtt://b\n  database: postgres://x@y/z\n  alarms:\n    offline_after: soon\n",
                  line: 5, key: "fleet.alarms.offline_after", says: "'soon' is not a duration"),
        BadConfig("a listen address without a port", "fleet:\n  broker: mqtt://b\n  database: postgres://x@y/z\n  listen: localhost\n",
                  line: 4, key: "fleet.listen", says: "is not host:port; write it like 127.0.0.1:7380"),
        BadConfig("a network listen without tokens", "fleet:\n  broker: mqtt://b\n  database: postgres://x@y/z\n  listen: 0.0.0.0:7380\n",
                  line: 4, key: "fleet.listen", says: "0.0.0.0 is reachable from the network, and fleet.tokens is empty"),
        BadConfig("a token with another role", "fleet:\n  broker: mqtt://b\n  database: postgres://x@y/z\n  tokens:\n    abcdefghijklmnopqrstuvwx: admin\n",
                  line: 5, key: "fleet.tokens.abcdefghijklmnopqrstuvwx", says: "'admin' is not a role; use read or operate"),
        BadConfig("a short token", "fleet:\n  broker: mqtt://b\n  database: postgres://x@y/z\n  tokens:\n    short: read\n",
                  line: 5, key: "fleet.tokens.short", says: "at least 16 characters"),
        BadConfig("a certificate without its key", "fleet:\n  broker: mqtt://b\n  database: postgres://x@y/z\n  tls_cert: /etc/hostname\n",
                  line: 4, key: "fleet.tls_cert", says: "fleet.tls_cert and fleet.tls_key go together"),
        BadConfig("a share group with a slash", "fleet:\n  broker: mqtt://b\n  database: postgres://x@y/z\n  share_group: a/b\n",
                  line: 4, key: "fleet.share_group", says: "'a/b' must be letters, digits, - _ and ."),
        BadConfig("a heartbeat under a second", "mqtt:\n  broker: mqtt://b\n  health_interval: 500ms\n", line: 3,
                  key: "mqtt.health_interval", says: "out of range"),
    ]

    @Test(arguments: bad)
    func aBadFleetKeyIsNamedWithItsLine(_ bad: BadConfig) async throws {
        let folder = try ConfigFolder()
        let problems = try await folder.problems(bad.bytes(in: folder))
        let problem = try #require(problems.first { $0.key == bad.key }, "\(problems)")
        #expect(problem.line == bad.line)
        #expect(problem.message.contains(folder.expand(bad.says)), "\(problem.message)")
    }
}

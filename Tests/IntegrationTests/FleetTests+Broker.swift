import Foundation
import Testing

/// docs/fleet.md's hardened broker (issue 42): the consoles' share group a secret of theirs
/// (`fleet.share_group`), client ids tied to users (`use_username_as_clientid true`), the example ACL.
extension OnTheTestSink.FleetTests {
    /// A Mosquitto set up as docs/fleet.md says, with the users `users` (password `secret-<user>`)
    /// and a second console user's ACL block.
    func hardenedBroker(users: [String], in folder: String) throws -> MQTTPrivateBroker {
        try MQTTPrivateBroker.withExampleACL(
            users: ["fleet-console", "fleet-console-b"] + users,
            aclLines: "user fleet-console-b\ntopic read herald/+/status\ntopic read herald/+/health\ntopic read herald/+/events\n",
            // Not TLS: the config lines after the listener, where the docs put it.
            tls: "use_username_as_clientid true\nmax_packet_size 1048576", in: folder)
    }

    /// Publishes `count` events of `hub` (logged in as itself) in one connection, QoS 1.
    static func publishEvents(_ count: Int, hub: String, port: Int) throws {
        let lines = (0..<count).map { #"{"hub":"\#(hub)","id":"e-\#($0)","outcome":"played"}"# }.joined(separator: "\n") + "\n"
        try Broker.publish("herald/\(hub)/events", lines, userProperties: [], perLine: true,
                           via: BrokerAccess(port: port).user(hub, password: "secret-\(hub)"))
    }

    @Test func aHubCredentialInTheShareGroupTakesNothingFromAConsoleWithASecretGroup() throws {
        let folder = NSTemporaryDirectory() + "herald-fleet-share-\(tag)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let intruder = "care-\(tag)-in", publisher = "care-\(tag)-pub"
        let broker = try hardenedBroker(users: [intruder, publisher], in: folder)
        defer { broker.stop() }
        let url = "mqtt://127.0.0.1:\(broker.port)"
        let secret = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let (guarded, exposed) = (try Postgres.freshDatabase(), try Postgres.freshDatabase())
        let consoles = [
            try FleetConsole(name: "sg-\(tag)", database: guarded, broker: ["broker: \(url)", "username: fleet-console", "password: secret-fleet-console"],
                             extra: "  share_group: \(secret)"),
            // The control: the default group, which the intruder joins.
            try FleetConsole(name: "sd-\(tag)", database: exposed,
                             broker: ["broker: \(url)", "username: fleet-console-b", "password: secret-fleet-console-b"],
                             shareGroup: "herald-fleet"),
        ]
        let access = BrokerAccess(port: broker.port).user(intruder, password: "secret-\(intruder)")
        let stolen = try Subscription("$share/herald-fleet/herald/+/events", via: access)
        Thread.sleep(forTimeInterval: 1)
        try Self.publishEvents(200, hub: publisher, port: broker.port)
        let count = "SELECT count(*) FROM events WHERE hub = '\(publisher)'"
        try SoundServer.waitFor("all 200 events kept by the console with the secret group", timeout: 20) {
            (try? Postgres.query(guarded, count)) == "200"
        }
        Thread.sleep(forTimeInterval: 2)
        let exposedCount = Int(try Postgres.query(exposed, count)) ?? -1
        #expect(exposedCount < 200, "the control: the intruder's share of the default group never reached that console (\(exposedCount) kept)")
        #expect(stolen.messages.isEmpty, "the broker's ACL drops what it hands the intruder")
        _ = consoles
    }

    @Test func anImpostorWithAnotherHubsClientIDDoesNotPutItOff() throws {
        let folder = NSTemporaryDirectory() + "herald-fleet-impostor-\(tag)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let victim = "care-\(tag)-v", impostor = "care-\(tag)-i"
        let broker = try hardenedBroker(users: [victim, impostor], in: folder)
        defer { broker.stop() }
        let url = "mqtt://127.0.0.1:\(broker.port)"
        let hub = try hub(victim, broker: url, login: ["username: \(victim)", "password: secret-\(victim)"])
        let daemon = try Daemon(hub.harness, port: hub.port)
        defer { daemon.stop() }
        let console = try FleetConsole(name: "i-\(tag)", database: try Postgres.freshDatabase(),
                                       broker: ["broker: \(url)", "username: fleet-console", "password: secret-fleet-console"])
        try SoundServer.waitFor("the victim online", timeout: 20) {
            console.hubs.contains { $0["hub"] as? String == victim && $0["state"] as? String == "online" }
        }
        // The impostor logs in as itself and asks for the victim's client id, again and again.
        let clientID = try #require((try daemon.get("/v1/status")["mqtt"] as? [String: Any])?["client_id"] as? String)
        // `timeout -s KILL`, not mosquitto_sub's -W: the test process's threads block SIGALRM and
        // SIGTERM and its children inherit the mask, so -W (an alarm) never fires here.
        for _ in 0..<5 {
            _ = try SoundServer.run("timeout", ["-s", "KILL", "1", "mosquitto_sub", "-h", "127.0.0.1", "-p", "\(broker.port)", "-u", impostor,
                                                "-P", "secret-\(impostor)", "-i", clientID, "-t", "herald/\(impostor)/announce"])
        }
        #expect(!broker.log.contains("already connected, closing old connection"), "\(broker.log.suffix(2000))")
        let link = try daemon.get("/v1/status")["mqtt"] as? [String: Any] ?? [:]
        #expect(link["state"] as? String == "connected" && link["last_error"] == nil, "the victim was never put off: \(link)")
        // A QoS 1 announcement sent to it now is said.
        let (code, body) = try Daemon.request("POST", console.base + "/v1/announce", #"{"hub": "\#(victim)", "text": "Still here."}"#)
        #expect(code == 202)
        let requestID = try #require((body as? [String: Any])?["request_id"] as? String)
        try SoundServer.waitFor("the victim to say it", timeout: 20) {
            try hub.harness.history().contains { $0["request_id"] as? String == requestID && $0["outcome"] as? String == "played" }
        }
    }
}

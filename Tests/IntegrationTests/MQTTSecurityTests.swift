import Foundation
import Testing

/// The broker as an admin should run it (DESIGN.md "Reaching hubs", docs/mqtt-security-draft.md):
/// TLS checked against the configured CA, and an ACL that keeps one hub's credentials from making
/// another hub speak. Each test starts a Mosquitto of its own beside the shared one.
extension OnTheTestSink {
@Suite(.enabled(if: Broker.shouldRun, "needs mosquitto and the private PulseAudio server of scripts/test.sh"))
final class MQTTSecurityTests {
    let folder: String

    init() throws {
        try SoundServer.require()
        try Broker.require()
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        folder = NSTemporaryDirectory() + "herald-mqtt-security-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// A hub on `broker` (a URL) with `mqtt` lines added under `mqtt:`.
    func hub(_ name: String, broker: String, _ mqtt: String = "") throws -> (harness: HeraldHarness, port: Int) {
        let port = DaemonTests.port()
        let harness = try HeraldHarness(extraConfig: """
            api:
              listen: 127.0.0.1:\(port)
            mqtt:
              broker: \(broker)
              hub: \(name)
              keepalive: 5s
            \(mqtt.split(separator: "\n").map { "  \($0)" }.joined(separator: "\n"))
            """)
        return (harness, port)
    }

    static func link(_ daemon: Daemon) throws -> [String: Any] {
        try daemon.get("/v1/status")["mqtt"] as? [String: Any] ?? [:]
    }

    static func waitConnected(_ daemon: Daemon) throws {
        try SoundServer.waitFor("the MQTT link to connect", timeout: 15) { try link(daemon)["state"] as? String == "connected" }
    }

    // MARK: - TLS

    /// A broker whose TLS listener shows a certificate signed by `authority`.
    func tlsBroker(signedBy authority: (certificate: String, key: String), name: String) throws -> MQTTPrivateBroker {
        let server = try TestCertificates.server(name, signedBy: authority, in: folder)
        let brokerFolder = folder + "/" + name
        try FileManager.default.createDirectory(atPath: brokerFolder, withIntermediateDirectories: true)
        return try MQTTPrivateBroker(config: """
            certfile \(server.certificate)
            keyfile \(server.key)
            allow_anonymous true
            """, in: brokerFolder)
    }

    @Test func anAnnouncementPublishedOverTLSIsSaid() throws {
        let authority = try TestCertificates.authority("ca", in: folder)
        let broker = try tlsBroker(signedBy: authority, name: "broker")
        let access = BrokerAccess(port: broker.port, options: ["--cafile", authority.certificate])
        let hub = try hub("hub-tls", broker: "mqtts://127.0.0.1:\(broker.port)", "ca: \(authority.certificate)")
        let daemon = try Daemon(hub.harness, port: hub.port)
        defer { daemon.stop() }
        try Self.waitConnected(daemon)
        #expect(try Broker.retained("herald/hub-tls/status", via: access)["state"] as? String == "online")
        let events = try Subscription("herald/hub-tls/events", via: access)
        let monitor = try MonitorRecording()
        try Broker.publish("herald/hub-tls/announce", #"{"clip": "ding", "request_id": "over-tls"}"#, via: access)
        try events.waitFor("the played event") { $0["request_id"] as? String == "over-tls" && $0["outcome"] as? String == "played" }
        usleep(200_000)
        monitor.stop()
        #expect(monitor.heardLevel(frequency: MQTTTests.ding) > 0.01, "heard on the monitor")
        #expect(try hub.harness.history().first?["request_id"] as? String == "over-tls")
    }

    @Test func aBrokerCertificateNotSignedByTheConfiguredCAIsRefused() throws {
        let authority = try TestCertificates.authority("ca", in: folder)
        let impostor = try TestCertificates.authority("impostor-ca", in: folder)
        let broker = try tlsBroker(signedBy: impostor, name: "impostor")
        let hub = try hub("hub-tls-refused", broker: "mqtts://127.0.0.1:\(broker.port)", "ca: \(authority.certificate)")
        let monitor = try MonitorRecording()
        let daemon = try Daemon(hub.harness, port: hub.port)
        // Whoever trusts the impostor can publish there; the hub never takes it.
        try Broker.publish("herald/hub-tls-refused/announce", #"{"clip": "ding", "request_id": "from-impostor"}"#,
                           via: BrokerAccess(port: broker.port, options: ["--cafile", impostor.certificate]))
        var link: [String: Any] = [:]
        try SoundServer.waitFor("the link to say why", timeout: 15) {
            link = try Self.link(daemon)
            return (link["last_error"] as? String)?.contains("certificate verify failed") == true
        }
        #expect(link["state"] as? String != "connected", "\(link)")
        usleep(1_500_000)
        #expect(try Self.link(daemon)["state"] as? String != "connected", "it never connects")
        daemon.stop()
        monitor.stop()
        #expect(daemon.output.contains("certificate verify failed"), "the log says why")
        #expect(monitor.soundSpan() == nil, "nothing said")
        #expect(try hub.harness.history().isEmpty)
    }

    // MARK: - ACL

    /// A broker with users and Config/mosquitto-acl.example's ACL: hub-a in group north, hub-b,
    /// and the backend.
    func aclBroker() throws -> (broker: MQTTPrivateBroker, backend: BrokerAccess, hubA: BrokerAccess, hubB: BrokerAccess) {
        let broker = try MQTTPrivateBroker.withExampleACL(users: ["backend", "hub-a", "hub-b"], aclLines: """
            user hub-a
            topic read herald/groups/north/announce
            """, in: folder)
        let base = BrokerAccess(port: broker.port)
        return (broker, base.user("backend", password: "secret-backend"), base.user("hub-a", password: "secret-hub-a"),
                base.user("hub-b", password: "secret-hub-b"))
    }

    @Test func anotherHubsCredentialsCannotMakeThisHubSpeakButTheBackendsCan() throws {
        let (broker, backend, _, hubB) = try aclBroker()
        let hub = try hub("hub-a", broker: "mqtt://127.0.0.1:\(broker.port)", """
            username: hub-a
            password: secret-hub-a
            groups: [north]
            """)
        let daemon = try Daemon(hub.harness, port: hub.port)
        defer { daemon.stop() }
        try Self.waitConnected(daemon)
        // The backend reads every hub's status and events.
        #expect(try Broker.retained("herald/hub-a/status", via: backend)["state"] as? String == "online")
        let events = try Subscription("herald/hub-a/events", via: backend)
        // hub-b may not read hub-a's announcements either.
        let eavesdropper = try Subscription("herald/hub-a/announce", via: hubB)
        let monitor = try MonitorRecording()
        // MQTT 3.1.1 as most clients speak it: the broker acknowledges, and drops it.
        try Broker.publish("herald/hub-a/announce", #"{"clip": "ding", "request_id": "from-hub-b"}"#, via: hubB)
        try Broker.publish("herald/groups/north/announce", #"{"clip": "ding", "request_id": "group-from-hub-b"}"#, via: hubB)
        // The backend's, after hub-b's were acknowledged: once it is played, hub-b's would have come first.
        try Broker.publish("herald/hub-a/announce", #"{"clip": "ding", "request_id": "from-backend"}"#, via: backend)
        try Broker.publish("herald/groups/north/announce", #"{"clip": "ding", "request_id": "group-from-backend"}"#, via: backend)
        try events.waitFor("both of the backend's played", count: 2) {
            ($0["request_id"] as? String)?.hasSuffix("from-backend") == true && $0["outcome"] as? String == "played"
        }
        usleep(300_000)
        monitor.stop()
        #expect(monitor.heardLevel(frequency: MQTTTests.ding) > 0.01, "the backend's are heard")
        let said = Set(try hub.harness.history().compactMap { $0["request_id"] as? String })
        #expect(said == ["from-backend", "group-from-backend"], "hub-b's never reached the hub: \(said)")
        #expect(!events.messages.contains { ($0["request_id"] as? String)?.contains("hub-b") == true })
        #expect(eavesdropper.messages.isEmpty && (eavesdropper.process.isRunning), "hub-b read nothing of hub-a's")
        #expect(broker.log.contains("Denied PUBLISH from"), "the broker says it dropped them: \(broker.log)")
        #expect(try Self.link(daemon)["last_error"] == nil, "hub-a's own publishes (status, events) were all allowed")
    }
}
}

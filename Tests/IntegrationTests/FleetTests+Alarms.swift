import Foundation
import Testing

/// The alarm webhook cannot be flooded or redirected (issue 42).
extension OnTheTestSink.FleetTests {
    @Test func aHeartbeatWithManyAbsentRoomsIsOneAlarmPOSTAndTwoThousandRoomsNone() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let console = try FleetConsole(name: "g-\(tag)", database: try Postgres.freshDatabase(),
                                       alarms: "    offline_after: 5m\n    webhook: \(receiver.url)")
        let many = "many-\(tag)", flood = "flood-\(tag)"
        for hub in [many, flood] { try Broker.publish("herald/\(hub)/status", #"{"state":"online","version":"1"}"#) }
        try Broker.publish("herald/\(flood)/health", Self.heartbeat(flood, rooms: 2_000))
        try Broker.publish("herald/\(many)/health", Self.heartbeat(many, rooms: 60))
        var notices: [[String: Any]] { receiver.events.filter { ($0["hub"] as? String ?? "").contains(tag) } }
        try SoundServer.waitFor("the absent rooms' alarm at the webhook", timeout: 15) { !notices.isEmpty }
        // Room by room they would keep coming (60 alarms, 60 POSTs): give them every chance.
        Thread.sleep(forTimeInterval: 5)
        #expect(notices.count == 1, "\(notices.count) POSTs: \(notices.prefix(3))")
        let notice = try #require(notices.first)
        #expect(notice["hub"] as? String == many && notice["kind"] as? String == "sink_absent" && notice["subject"] as? String == "")
        #expect((notice["detail"] as? String ?? "").hasPrefix("60 rooms: room r0 has no sink"), "\(notice)")
        #expect(console.alarms("?state=open").filter { ($0["hub"] as? String ?? "").contains(tag) }.count == 1)
    }

    @Test func theAlarmWebhooksRedirectIsNotFollowed() throws {
        let target = try WebhookReceiver()
        defer { target.stop() }
        let redirecting = try WebhookReceiver(redirectTo: target.url)
        defer { redirecting.stop() }
        let console = try FleetConsole(name: "r-\(tag)", database: try Postgres.freshDatabase(),
                                       alarms: "    offline_after: 1s\n    webhook: \(redirecting.url)")
        try Broker.publish("herald/gone-\(tag)/status", #"{"state":"offline","version":"1"}"#)
        // The first POST and its retry a second later: both answered 307.
        try SoundServer.waitFor("the alarm POSTed twice to the webhook", timeout: 20) { redirecting.requests >= 2 }
        Thread.sleep(forTimeInterval: 1)
        #expect(target.requests == 0, "the redirect was followed")
        #expect(console.log.contains("the webhook answered HTTP 307"), "\(console.log.suffix(2000))")
    }
}

import Foundation
import HeraldCore
@testable import HeraldFleet
import Testing

/// What the console makes of a hub's message, and what it refuses (DESIGN.md "Reaching hubs").
@Suite struct HubMessageTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func read(_ topic: String, _ payload: String) throws(HubMessageError) -> HubMessage? {
        try HubMessage.read(topic: topic, payload: Array(payload.utf8), receivedAt: now)
    }

    @Test func aStatusAHeartbeatAndAnEventAreRead() throws {
        guard case .status(let hub, let state, let version, _) = try read("herald/shop-1/status", #"{"state":"online","version":"0.3.0","since":"x"}"#) else {
            Issue.record("not a status")
            return
        }
        #expect(hub == "shop-1" && state == "online" && version == "0.3.0")
        let health = HubHealth(hub: "shop-1", version: "0.3.0", at: now, uptimeSeconds: 5, intervalSeconds: 60)
        guard case .health(let heartbeat, _, _, _) = try read("herald/shop-1/health", String(decoding: health.json, as: UTF8.self)) else {
            Issue.record("not a heartbeat")
            return
        }
        #expect(heartbeat == health)
        let event = #"{"at":"2027-01-15T08:00:00Z","hub":"shop-1","id":"A1","outcome":"played","request_id":"till/1","topic":"herald/shop-1/announce"}"#
        guard case .event(let fleetEvent, _) = try read("herald/shop-1/events", event) else {
            Issue.record("not an event")
            return
        }
        #expect(fleetEvent.outcome == "played" && fleetEvent.announcement == "A1" && fleetEvent.requestID == "till/1")
        #expect(fleetEvent.at.formatted(.iso8601) == "2027-01-15T08:00:00Z")
        // A retained message cleared (an empty payload) is nothing to read.
        #expect(try read("herald/shop-1/status", "") == nil)
    }

    @Test(arguments: [
        ("herald/shop-1/status", "not json", "is not JSON"),
        ("herald/shop-1/status", "[1]", "not an object"),
        ("herald/shop-1/status", #"{"state":"asleep"}"#, "state must be \"online\" or \"offline\""),
        ("herald/shop-1/health", #"{"hub":"shop-1","version":"1"}"#, "is missing"),
        ("herald/shop-1/health", #"{"hub":"shop-2","version":"1"}"#, "names hub 'shop-2', the topic 'shop-1'"),
        ("herald/shop-1/events", #"{"hub":"shop-1"}"#, "needs an outcome"),
        ("herald/shop 1/events", #"{"outcome":"played"}"#, "not a hub's topic"),
        ("herald/shop-1/announce", #"{"text":"hi"}"#, "not a topic the console reads"),
    ])
    func aMessageOfAnotherShapeIsRefusedNamingWhy(topic: String, payload: String, says: String) {
        do {
            _ = try read(topic, payload)
            Issue.record("read \(payload)")
        } catch {
            #expect(error.description.contains(says), "\(error)")
            #expect(error.description.hasPrefix(topic))
        }
    }

    @Test func theWebhookNoticeHasTheDocumentedShape() throws {
        let alarm = AlarmRow(id: 17, hub: "care-0042", kind: "offline", subject: "", state: "closed", detail: "gone",
                             openedAt: now, openedBy: "console-a", closedAt: now.addingTimeInterval(60))
        for opening in [true, false] {
            let notice = AlarmNotice(FleetStore.Notice(alarm: alarm, opening: opening, attempts: 1), console: "console-b")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(notice.json)) as? [String: Any])
            #expect(Set(object.keys) == ["event", "alarm", "hub", "kind", "subject", "state", "detail", "opened_at", "closed_at", "console", "sent_at"])
            #expect(object["event"] as? String == (opening ? "alarm_opened" : "alarm_closed"))
            #expect(object["state"] as? String == (opening ? "open" : "closed"))
            #expect(object["hub"] as? String == "care-0042")
            #expect(opening ? object["closed_at"] is NSNull : object["closed_at"] as? String == now.addingTimeInterval(60).formatted(.iso8601))
        }
    }

    @Test func waitingMessagesKeepEveryEventAndOnlyTheNewestStatusOfAHub() async {
        let waiting = WaitingMessages(maxEvents: 3)
        // 9,990 + 5 + 9 = 10,004 messages: one past maxEvents + 10,000, so the last add compacts.
        for n in 0..<9_990 { await waiting.add(.status(hub: "shop-1", state: n % 2 == 0 ? "online" : "offline", version: nil, receivedAt: now)) }
        for n in 0..<5 {
            await waiting.add(.event(FleetEvent(hub: "shop-1", at: now, outcome: "played", announcement: "\(n)", body: "{}"), receivedAt: now))
        }
        for _ in 0..<9 { await waiting.add(.status(hub: "shop-2", state: "online", version: nil, receivedAt: now)) }
        let batch = (await waiting.next(100) ?? []).map(\.message)
        // Compacted: shop-1's last status (offline), the 3 newest events, shop-2's last status.
        #expect(batch.count == 5, "\(batch.count)")
        #expect(await waiting.dropped == 2)
        if case .status(_, let state, _, _) = batch.first { #expect(state == "offline") } else { Issue.record("\(batch)") }
        let events = batch.compactMap { message -> String? in if case .event(let event, _) = message { event.announcement } else { nil } }
        #expect(events == ["2", "3", "4"])
    }
}

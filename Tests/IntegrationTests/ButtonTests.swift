import Foundation
import Testing

/// Buttons on a real PulseAudio and the private Mosquitto of scripts/test.sh: a zigbee2mqtt-shaped
/// message acknowledges a waiting reminder, a double press says the last payment again, `total`
/// says the day's payments (duplicates and refusals left out), `help` is heard in every room and
/// reaches the caregiver's webhook at once.
extension OnTheTestSink {
@Suite(.enabled(if: Broker.shouldRun, "needs the private Mosquitto broker of scripts/test.sh"))
final class ButtonTests {
    static let ding = 1318.5
    var modules: [String] = []
    let kitchen = "button_kitchen_\(getpid())"

    init() throws {
        try SoundServer.require()
        try Broker.require()
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        modules.append(try SoundServer.run("/usr/bin/pactl", ["load-module", "module-null-sink", "sink_name=\(kitchen)"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines))
        _ = try SoundServer.run("/usr/bin/pactl", ["set-sink-volume", kitchen, "60%"])
    }

    deinit {
        for module in modules { _ = try? SoundServer.run("/usr/bin/pactl", ["unload-module", module]) }
    }

    /// A hub with a Zigbee button (`pill`, on its own zigbee2mqtt topic) and an HTTP one (`counter`).
    func start(_ extra: String = "") throws -> (daemon: Daemon, harness: HeraldHarness, hub: String, pill: String) {
        let hub = "hub-\(UUID().uuidString.prefix(8).lowercased())"
        let pill = "zigbee2mqtt/pill-\(hub)"
        let port = DaemonTests.port()
        let harness = try HeraldHarness(extraConfig: """
            api:
              listen: 127.0.0.1:\(port)
            mqtt:
              broker: \(Broker.url)
              hub: \(hub)
              keepalive: 5s
              health_interval: 60s
            speech:
              currency: INR
            buttons:
              pill:
                mqtt: \(pill)
                actions: {single: ack, double: repeat_payment, hold: help}
                label: the bedroom
              counter:
                actions: {single: total, double: repeat}
            \(extra)
            """)
        let daemon = try Daemon(harness, port: port)
        try SoundServer.waitFor("the MQTT link to connect", timeout: 15) {
            (try daemon.get("/v1/status")["mqtt"] as? [String: Any])?["state"] as? String == "connected"
        }
        return (daemon, harness, hub, pill)
    }

    func buttonRows(_ harness: HeraldHarness) throws -> [[String: Any]] {
        try harness.history().filter { $0["source"] as? String == "button" }
    }

    @Test func aZigbeePressAcknowledgesTheWaitingReminderAndSaysThankYou() throws {
        let (daemon, harness, _, pill) = try start()
        defer { daemon.stop() }
        let due = ReminderTests.local(1)
        let (_, created) = try daemon.post("/v1/reminders", ReminderTests.oneShot(due.text, extra: #", "repeat": {"every": "3s", "times": 5}"#))
        let id = try #require(created["id"] as? String)
        try SoundServer.waitFor("the reminder to wait for an answer", timeout: 10) {
            ((try daemon.get("/v1/reminders/\(id)"))["waiting_since"] as? String) != nil
        }
        // zigbee2mqtt's battery report carries no action: no press.
        try Broker.publish(pill, #"{"battery": 97, "linkquality": 120}"#)
        try Broker.publish(pill, "not json at all")
        try Broker.publish(pill, #"{"action": "single", "battery": 97, "linkquality": 120}"#)
        try SoundServer.waitFor("the thank-you to be said", timeout: 10) {
            try self.buttonRows(harness).contains { $0["body"] as? String == "Thank you." && $0["outcome"] as? String == "played" }
        }
        #expect((try daemon.get("/v1/reminders/\(id)"))["waiting_since"] == nil)
        let report = try daemon.get("/v1/reminders/report?days=1")
        let line = (report["lines"] as? [[String: Any]])?.first { $0["name"] as? String == id }
        #expect((line?["acknowledged_by"] as? [String: Any])?["button:pill"] as? Int == 1, "\(report)")
        usleep(500_000)
        let monitor = try MonitorRecording()
        sleep(5)
        monitor.stop()
        #expect(monitor.firstHeard(frequency: Self.ding) == nil, "no more repeats after the press")
        let presses = (try daemon.get("/v1/buttons"))["presses"] as? [[String: Any]] ?? []
        #expect(presses.contains { $0["button"] as? String == "pill" && $0["action"] as? String == "ack" && $0["result"] as? String == "done" }, "\(presses)")
        // A second press has nothing to acknowledge, and says so.
        sleep(1)
        try Broker.publish(pill, #"{"action": "single"}"#)
        try SoundServer.waitFor("nothing is waiting to be said", timeout: 10) {
            try self.buttonRows(harness).contains { $0["body"] as? String == "Nothing is waiting." && $0["outcome"] as? String == "played" }
        }
    }

    @Test func theTotalCountsPaymentsSaidOnceAndRepeatsSayTheLastAgain() throws {
        let (daemon, harness, _, pill) = try start()
        defer { daemon.stop() }
        for (amount, currency, id) in [("12.50", "INR", "a"), ("100", "INR", "b"), ("5.25", "USD", "c"), ("12.50", "INR", "a")] {
            let (status, _) = try daemon.post("/v1/announcements?wait=true",
                                              #"{"payment": {"amount": "\#(amount)", "currency": "\#(currency)"}, "request_id": "till/\#(id)"}"#)
            #expect(status == 200)
        }
        let (refused, _) = try daemon.post("/v1/announcements?wait=true", #"{"payment": {"amount": "0", "currency": "INR"}}"#)
        #expect(refused == 400)
        // Said again from the counter (the last one said: 5.25 USD) and from the Zigbee button
        // (the last payment): neither is a new payment.
        let (repeated, press) = try daemon.post("/v1/buttons/counter/double", "")
        #expect(repeated == 200 && press["result"] as? String == "done", "\(press)")
        try Broker.publish(pill, #"{"action": "double"}"#)
        try SoundServer.waitFor("both repeats to be said", timeout: 15) {
            try self.buttonRows(harness).filter { $0["body"] as? String == "5.25 USD" && $0["outcome"] as? String == "played" }.count == 2
        }
        let totals = try daemon.get("/v1/payments/total")
        #expect(totals["count"] as? Int == 3, "\(totals)")
        let byCurrency = Dictionary(uniqueKeysWithValues: (totals["totals"] as? [[String: Any]] ?? []).map { ($0["currency"] as? String ?? "", $0) })
        #expect(byCurrency["INR"]?["minor_units"] as? Int == 11_250 && byCurrency["INR"]?["count"] as? Int == 2, "\(totals)")
        #expect(byCurrency["USD"]?["amount"] as? String == "5.25" && byCurrency["USD"]?["count"] as? Int == 1, "\(totals)")
        let (said, total) = try daemon.post("/v1/buttons/counter/single", "")
        #expect(said == 200 && total["result"] as? String == "done", "\(total)")
        // A bouncing button: the same action within a second is refused, once.
        let (again, _) = try daemon.post("/v1/buttons/counter/single", "")
        #expect(again == 429)
        try SoundServer.waitFor("the total to be said", timeout: 15) {
            try self.buttonRows(harness).contains { ($0["body"] as? String)?.hasPrefix("Payments today: two, total one hundred twelve") == true
                && $0["outcome"] as? String == "played" }
        }
        let sentence = try buttonRows(harness).compactMap { $0["body"] as? String }.first { $0.hasPrefix("Payments today") } ?? ""
        #expect(sentence.contains("Payments today: one, total five"), "\(sentence)")
        let (unknownEvent, _) = try daemon.post("/v1/buttons/counter/triple", "")
        let (unknownButton, _) = try daemon.post("/v1/buttons/door/single", "")
        #expect(unknownEvent == 422 && unknownButton == 404)
        let herald = try harness.herald(["pay", "total", "--json"])
        #expect(herald.status == 0 && herald.stdout.contains("\"minor_units\":11250") || herald.stdout.contains("\"minor_units\" : 11250"),
                "\(herald.stdout) \(herald.stderr)")
    }

    @Test func helpIsHeardInEveryRoomAndReachesTheCaregiverAtOnce() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        // The harness is kept: its folder (the database) goes with it.
        let (daemon, harness, hub, pill) = try start("""
            reminders:
              escalate: \(receiver.url)
            rooms:
              counter: {sink: \(SoundServer.sink)}
              kitchen: {sink: \(kitchen)}
            """)
        defer { daemon.stop(); _ = harness }
        let monitors = try [SoundServer.sink, kitchen].map { try MonitorRecording(sink: $0) }
        let pressed = Date()
        try Broker.publish(pill, #"{"action": "hold"}"#)
        try SoundServer.waitFor("the caregiver's webhook", timeout: 5) { receiver.events.contains { $0["event"] as? String == "help.called" } }
        #expect(Date().timeIntervalSince(pressed) < 3, "sent at once, not after the repeats")
        let event = try #require(receiver.events.first { $0["event"] as? String == "help.called" })
        #expect(event["text"] as? String == "Help is needed: the bedroom" && event["priority"] as? String == "critical", "\(event)")
        let call = try #require(event["reminder"] as? String)
        try SoundServer.waitFor("the call to wait for an answer", timeout: 10) {
            ((try daemon.get("/v1/reminders/\(call)"))["waiting_since"] as? String) != nil
        }
        usleep(500_000)
        for monitor in monitors { monitor.stop() }
        for (monitor, room) in zip(monitors, ["counter", "kitchen"]) {
            #expect(monitor.soundSpan() != nil, "the call for help heard in \(room)")
        }
        // The heartbeat carries it to the fleet console at once (a change that matters).
        try SoundServer.waitFor("the heartbeat to carry the call", timeout: 10) {
            (try Broker.retained("herald/\(hub)/health")["help_calls"] as? [String])?.contains(call) == true
        }
        // Answered like a reminder: the same button's single press.
        try Broker.publish(pill, #"{"action": "single"}"#)
        try SoundServer.waitFor("the call to be answered", timeout: 10) {
            ((try daemon.get("/v1/reminders/\(call)"))["waiting_since"] as? String) == nil
        }
        try SoundServer.waitFor("the heartbeat to drop it", timeout: 10) {
            try Broker.retained("herald/\(hub)/health")["help_calls"] == nil
        }
    }
}
}

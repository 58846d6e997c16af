import Foundation
import Testing

/// `herald serve` with `mqtt:` against the private Mosquitto broker of scripts/test.sh: the
/// backend is mosquitto_pub and mosquitto_sub, and what the hub says is heard on the monitor.
extension OnTheTestSink {
@Suite(.enabled(if: Broker.shouldRun, "needs the private Mosquitto broker of scripts/test.sh"))
final class MQTTTests {
    /// ding.flac's tone.
    static let ding = 1318.5

    init() throws {
        try SoundServer.require()
        try Broker.require()
        try SoundServer.setSink(volumes: ["60%"], muted: false)
    }

    /// A hub named uniquely for this test, so no test sees another's retained status or session.
    /// `api`: more keys of the `api:` section, each line indented by two spaces.
    func hub(groups: [String] = [], api: String = "") throws -> (harness: HeraldHarness, port: Int, name: String) {
        let name = "hub-\(UUID().uuidString.prefix(8).lowercased())"
        let port = DaemonTests.port()
        let harness = try HeraldHarness(extraConfig: """
            api:
              listen: 127.0.0.1:\(port)
            \(api)
            mqtt:
              broker: \(Broker.url)
              hub: \(name)
              groups: [\(groups.joined(separator: ", "))]
              keepalive: 5s
            """)
        return (harness, port, name)
    }

    /// Starts the daemon and waits until its link says connected in /v1/status.
    func start(_ hub: (harness: HeraldHarness, port: Int, name: String)) throws -> Daemon {
        let daemon = try Daemon(hub.harness, port: hub.port)
        try waitConnected(daemon)
        return daemon
    }

    func waitConnected(_ daemon: Daemon, timeout: Double = 15) throws {
        try SoundServer.waitFor("the MQTT link to connect", timeout: timeout) {
            (try daemon.get("/v1/status")["mqtt"] as? [String: Any])?["state"] as? String == "connected"
        }
    }

    @Test func aPublishIsHeardAndItsOutcomeReported() throws {
        let hub = try hub()
        let daemon = try start(hub)
        defer { daemon.stop() }
        #expect(try Broker.retained("herald/\(hub.name)/status")["state"] as? String == "online")
        let events = try Subscription("herald/\(hub.name)/events")
        let monitor = try MonitorRecording()
        try Broker.publish("herald/\(hub.name)/announce", #"{"clip": "ding", "request_id": "till-1/0001", "priority": "high"}"#)
        let event = try events.waitFor("the played event") { $0["outcome"] as? String == "played" }[0]
        // `accepted` first, once the row is written: what a backend waits for before it stops
        // publishing again.
        let accepted = events.messages.firstIndex { $0["outcome"] as? String == "accepted" }
        let played = events.messages.firstIndex { $0["outcome"] as? String == "played" }
        #expect(accepted != nil && accepted! < played!, "\(events.messages)")
        #expect(events.messages.first?["request_id"] as? String == "till-1/0001")
        usleep(200_000)
        monitor.stop()
        #expect(monitor.heardLevel(frequency: Self.ding) > 0.01, "heard on the monitor")
        #expect(event["request_id"] as? String == "till-1/0001")
        #expect(event["id"] as? String != nil)
        #expect(event["onset_latency_ms"] as? Int != nil)
        let rows = try hub.harness.history()
        #expect(rows.count == 1 && rows.first?["source"] as? String == "mqtt")
    }

    @Test func theSameRequestIDPublishedThreeTimesPlaysOnce() throws {
        let hub = try hub()
        let daemon = try start(hub)
        defer { daemon.stop() }
        let events = try Subscription("herald/\(hub.name)/events")
        for _ in 0..<3 {
            try Broker.publish("herald/\(hub.name)/announce", #"{"clip": "ding", "request_id": "till-2/0007"}"#)
        }
        try events.waitFor("four events", count: 4)
        usleep(500_000)
        let outcomes = events.messages.compactMap { $0["outcome"] as? String }.sorted()
        #expect(outcomes == ["accepted", "duplicate", "duplicate", "played"])
        #expect(Set(events.messages.compactMap { $0["id"] as? String }).count == 1, "the repeats name the original")
        #expect(try hub.harness.history().count == 1)
    }

    @Test func aMessageSentWhileTheHubWasStoppedIsSaidWhenItStarts() throws {
        let hub = try hub()
        var daemon = try start(hub)
        daemon.stop()
        #expect(try Broker.retained("herald/\(hub.name)/status")["state"] as? String == "offline", "a clean stop says offline")
        // The broker holds these for the hub's persistent session.
        try Broker.publish("herald/\(hub.name)/announce", #"{"clip": "ding", "request_id": "while-away-1"}"#)
        try Broker.publish("herald/\(hub.name)/announce",
                           #"{"action": "speak_tts", "text": "Order twelve is ready", "request_id": "while-away-2"}"#)
        // Sent two hours ago: past normal's max age (30 minutes) when it arrives.
        let sentAt = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-7200))
        try Broker.publish("herald/\(hub.name)/announce",
                           #"{"text": "Order three is ready", "request_id": "while-away-3", "sent_at": "\#(sentAt)"}"#)
        daemon = try Daemon(hub.harness, port: hub.port)
        defer { daemon.stop() }
        try SoundServer.waitFor("both held messages to play and the stale one to be logged", timeout: 30) {
            let history = try hub.harness.history()
            return history.filter { $0["outcome"] as? String == "played" }.count == 2 && history.count == 3
        }
        let history = try hub.harness.history()
        #expect(Set(history.filter { $0["outcome"] as? String == "played" }.compactMap { $0["request_id"] as? String })
                == ["while-away-1", "while-away-2"])
        let stale = try #require(history.first { $0["request_id"] as? String == "while-away-3" })
        #expect(stale["outcome"] as? String == "failed" && (stale["error"] as? String)?.contains("max age") == true, "\(stale)")
    }

    @Test func aMalformedMessageGivesAnErrorEventNamingTheFieldAndNothingPlays() throws {
        let hub = try hub()
        let daemon = try start(hub)
        defer { daemon.stop() }
        let events = try Subscription("herald/\(hub.name)/events")
        let monitor = try MonitorRecording()
        let topic = "herald/\(hub.name)/announce"
        try Broker.publish(topic, #"{"payment": {"amount": "12.3.4"}, "request_id": "bad-1"}"#)
        try Broker.publish(topic, #"{"text": "hello", "priority": "urgent", "request_id": "bad-2"}"#)
        try Broker.publish(topic, #"{"message": {"data": {"action": "speak_tts", "text": ""}}}"#)
        try Broker.publish(topic, "not json at all")
        let errors = try events.waitFor("four error events", count: 4) { $0["outcome"] as? String == "error" }
        usleep(300_000)
        monitor.stop()
        let fields = errors.map { $0["field"] as? String ?? "-" }
        #expect(fields.contains("payment.amount"))
        #expect(fields.contains("priority"))
        #expect(fields.contains("message.data.text"))
        #expect(errors.first { $0["field"] as? String == "payment.amount" }?["request_id"] as? String == "bad-1")
        #expect(errors.allSatisfy { ($0["error"] as? String)?.isEmpty == false })
        #expect(monitor.soundSpan() == nil, "nothing played")
        #expect(try hub.harness.history().isEmpty)
        #expect(try daemon.get("/v1/health")["status"] as? String == "ok", "the daemon lives on")
    }

    @Test func theBrokerRestartedUnderTheHubItReconnectsAndTheNextPublishIsHeard() throws {
        let hub = try hub()
        let daemon = try start(hub)
        defer { daemon.stop() }
        try Broker.restart()
        // The hub sees the connection drop at once and is back within its first retry (0.5 s).
        usleep(1_500_000)
        try waitConnected(daemon, timeout: 30)
        // Speech through the API never depended on the broker.
        #expect(try daemon.post("/v1/announcements?wait=true", #"{"clip": "ding"}"#).1["outcome"] as? String == "played")
        let events = try Subscription("herald/\(hub.name)/events")
        let monitor = try MonitorRecording()
        try Broker.publish("herald/\(hub.name)/announce", #"{"clip": "ding", "request_id": "after-restart"}"#)
        try events.waitFor("the played event") { $0["request_id"] as? String == "after-restart" && $0["outcome"] as? String == "played" }
        usleep(200_000)
        monitor.stop()
        #expect(monitor.heardLevel(frequency: Self.ding) > 0.01)
    }

    /// Issue 25: one retained payment of 77.00 without a request id was said at every reconnect
    /// and restart. A retained message is refused however it arrives, each time with an `error`
    /// event and a warning naming the topic; nothing is said and nothing is logged as said.
    @Test func aRetainedPaymentIsNeverSaidAtAnySubscribeReconnectOrRestart() throws {
        let hub = try hub()
        let topic = "herald/\(hub.name)/announce"
        defer { try? Broker.clearRetained(topic) }
        try Broker.publish(topic, #"{"payment": {"amount": "77.00", "currency": "USD"}, "priority": "high"}"#, retain: true)
        // A persistent session of its own, so the events sent while the broker restarts wait for it.
        let events = try Subscription("herald/\(hub.name)/events",
                                      via: BrokerAccess(port: Broker.port, options: ["-c", "-i", "events-\(hub.name)"]))
        let refusal: ([String: Any]) -> Bool = { $0["outcome"] as? String == "error" && $0["field"] as? String == "retain" }
        let monitor = try MonitorRecording()
        var daemon = try start(hub)
        try events.waitFor("the refusal at the first subscribe", where: refusal)
        // Published retained while the hub listens: the flag survives a live delivery too.
        try Broker.publish(topic, #"{"payment": {"amount": "12.00", "currency": "USD"}, "request_id": "live-retained"}"#, retain: true)
        try events.waitFor("the refusal of the live one", count: 2, where: refusal)
        try Broker.restart()
        usleep(1_500_000)
        try waitConnected(daemon, timeout: 30)
        try events.waitFor("the refusal after the broker's restart", count: 3, timeout: 30, where: refusal)
        daemon.stop()
        var log = daemon.output
        daemon = try start(hub)
        try events.waitFor("the refusal after the hub's restart", count: 4, where: refusal)
        usleep(500_000)
        daemon.stop()
        log += daemon.output
        monitor.stop()
        #expect(monitor.soundSpan() == nil, "nothing heard")
        #expect(try hub.harness.history().isEmpty, "nothing logged as an announcement")
        let refusals = events.messages.filter(refusal)
        #expect(refusals.allSatisfy { ($0["error"] as? String)?.contains("retained messages are never said") == true }, "\(refusals)")
        #expect(refusals.contains { $0["request_id"] as? String == "live-retained" }, "the event names the message it answers")
        #expect(log.contains("MQTT: message on \(topic) refused: retain: the message was retained"), "warned, naming the topic: \(log)")
    }

    /// The MQTT 5 user property `herald-signature` reaches the link (what it proves is the
    /// intake's business); a message with two of them is refused, naming the property.
    /// `herald sign --value` for `payload` with the secret in `secretFile`, as a backend's script would.
    func sign(_ payload: String, secretFile: String, in folder: String) throws -> String {
        try payload.write(toFile: folder + "/body.json", atomically: true, encoding: .utf8)
        let run = try SoundServer.run("/bin/sh", ["-c", "'\(HeraldHarness.binary)' sign --value --secret-file '\(secretFile)' < '\(folder)/body.json'"])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func onlyAPaymentSignedWithTheHubsSecretIsSaidOverMQTT() throws {
        let hub = try hub(api: "  signing_secrets:\n    till_file: till.secret\n  require_signature: [payment]")
        let secretFile = hub.harness.folder + "/till.secret", otherFile = hub.harness.folder + "/other.secret"
        try "5d41402abc4b2a76b9719d911017c592\n".write(toFile: secretFile, atomically: true, encoding: .utf8)
        try "not-this-hubs-secret-at-all-0000\n".write(toFile: otherFile, atomically: true, encoding: .utf8)
        let daemon = try start(hub)
        defer { daemon.stop() }
        let events = try Subscription("herald/\(hub.name)/events")
        let topic = "herald/\(hub.name)/announce"
        let folder = hub.harness.folder

        let good = #"{"payment": {"amount": "1.00"}, "request_id": "signed-1"}"#
        try Broker.publishSigned(topic, good, signature: try sign(good, secretFile: secretFile, in: folder))
        try events.waitFor("the played event") { $0["request_id"] as? String == "signed-1" && $0["outcome"] as? String == "played" }

        let refusals: [(String, String, String?, String)] = [
            ("unsigned", #"{"payment": {"amount": "2.00"}, "request_id": "signed-2"}"#, nil, "must be signed"),
            ("another secret", #"{"payment": {"amount": "3.00"}, "request_id": "signed-3"}"#, otherFile, "does not match"),
            ("stale", #"{"payment": {"amount": "4.00"}, "request_id": "signed-4"}"#, "t=1764000000,v1=" + String(repeating: "ab", count: 32), "ago"),
        ]
        for (name, payload, signer, says) in refusals {
            if let signer {
                let signature = signer.hasPrefix("t=") ? signer : try sign(payload, secretFile: signer, in: folder)
                try Broker.publishSigned(topic, payload, signature: signature)
            } else {
                try Broker.publish(topic, payload)
            }
            let id = (try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])?["request_id"] as? String
            let refused = try events.waitFor("the refusal of the \(name) payment") { $0["request_id"] as? String == id }[0]
            #expect(refused["outcome"] as? String == "error" && refused["field"] as? String == "herald-signature", "\(name): \(refused)")
            #expect((refused["error"] as? String)?.contains(says) == true, "\(name): \(refused)")
        }
        // A payload signed, then changed on the way (the signature of another body).
        let changed = #"{"payment": {"amount": "900.00"}, "request_id": "signed-5"}"#
        try Broker.publishSigned(topic, changed, signature: try sign(#"{"payment": {"amount": "9.00"}, "request_id": "signed-5"}"#,
                                                                    secretFile: secretFile, in: folder))
        let altered = try events.waitFor("the refusal of the altered payment") { $0["request_id"] as? String == "signed-5" }[0]
        #expect(altered["outcome"] as? String == "error", "\(altered)")
        try Broker.publishSigned(topic, #"{"clip": "ding", "request_id": "signed-6"}"#,
                                 signature: "t=1764000000,v1=aa", extraSignatures: ["t=1764000001,v1=bb"])
        let twice = try events.waitFor("the refusal of two signatures") { $0["request_id"] as? String == "signed-6" }[0]
        #expect(twice["outcome"] as? String == "error" && twice["field"] as? String == "herald-signature", "\(twice)")
        // A text needs no signature here.
        try Broker.publish(topic, #"{"clip": "ding", "request_id": "unsigned-clip"}"#)
        try events.waitFor("the clip played") { $0["request_id"] as? String == "unsigned-clip" && $0["outcome"] as? String == "played" }
        let rows = try hub.harness.history()
        #expect(rows.count == 2, "only the signed payment and the clip: \(rows)")
        #expect(rows.first { $0["request_id"] as? String == "signed-1" }?["signed_by"] as? String == "till")
    }

    /// Issue 27: events waiting for the broker were held in memory, so a hub killed while its
    /// broker was away never reported what it had said. They wait in the database until the
    /// broker acknowledges them, and the next start sends them.
    @Test func anOutcomeOwedWhileTheBrokerWasAwayIsSentAfterAKill() throws {
        let folder = NSTemporaryDirectory() + "herald-owed-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let broker = try MQTTPrivateBroker(config: "allow_anonymous true", in: folder)
        defer { broker.stop() }
        let access = BrokerAccess(port: broker.port)
        let name = "hub-\(UUID().uuidString.prefix(8).lowercased())"
        let port = DaemonTests.port()
        let harness = try HeraldHarness(extraConfig: """
            api:
              listen: 127.0.0.1:\(port)
            mqtt:
              broker: mqtt://127.0.0.1:\(broker.port)
              hub: \(name)
              keepalive: 5s
            """)
        var daemon = try Daemon(harness, port: port)
        try waitConnected(daemon)
        let before = try Subscription("herald/\(name)/events", via: access)
        // Long enough (about 4 s of speech) to be still playing when the broker has stopped.
        try Broker.publish("herald/\(name)/announce",
                           #"{"text": "Order forty two is ready at the counter, please come and collect it now", "request_id": "owed-1"}"#,
                           via: access)
        try before.waitFor("the accepted event") { $0["outcome"] as? String == "accepted" }
        broker.stop()
        try SoundServer.waitFor("the announcement to be played", timeout: 30) {
            try harness.history().first?["outcome"] as? String == "played"
        }
        try #require(!before.messages.contains { $0["outcome"] as? String == "played" },
                     "the broker stopped before the outcome could go: \(before.messages)")
        daemon.crash()
        try broker.start()
        let after = try Subscription("herald/\(name)/events", via: access)
        daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let played = try after.waitFor("the played event owed since before the kill") {
            $0["request_id"] as? String == "owed-1" && $0["outcome"] as? String == "played"
        }
        #expect(played.first?["onset_latency_ms"] as? Int != nil)
        // Sent once: a later message's outcome comes after anything owed would have.
        try Broker.publish("herald/\(name)/announce", #"{"clip": "ding", "request_id": "owed-2"}"#, via: access)
        try after.waitFor("the next message's outcome") { $0["request_id"] as? String == "owed-2" && $0["outcome"] as? String == "played" }
        #expect(after.messages.filter { $0["request_id"] as? String == "owed-1" }.count == 1, "\(after.messages)")
    }

    /// A message accepted over MQTT whose hub was killed while saying it is said again at the
    /// next start, and its outcome is reported then: the backend that saw `accepted` learns how
    /// it ended (the earlier run's wait for it died with the process).
    @Test func anAnnouncementCutByAKillHasItsOutcomeReportedAfterTheRestart() throws {
        let hub = try hub()
        var daemon = try start(hub)
        let events = try Subscription("herald/\(hub.name)/events")
        try Broker.publish("herald/\(hub.name)/announce",
                           #"{"text": "Order fifty one is ready at the counter, please come and collect it now", "request_id": "cut-1"}"#)
        try events.waitFor("the accepted event") { $0["request_id"] as? String == "cut-1" && $0["outcome"] as? String == "accepted" }
        // About 4 s of speech: killed while it plays.
        var playing: [String: Any]?
        try SoundServer.waitFor("the announcement to be playing", timeout: 15) {
            playing = try daemon.get("/v1/status")["daemon"] as? [String: Any]
            return (playing?["current_elapsed_milliseconds"] as? Int ?? 0) > 300
        }
        // The status names where it plays (the soak follows each play by it).
        #expect(playing?["current_sink"] as? String == SoundServer.sink, "\(playing ?? [:])")
        daemon.crash()
        #expect(!events.messages.contains { $0["request_id"] as? String == "cut-1" && $0["outcome"] as? String == "played" })
        daemon = try start(hub)
        defer { daemon.stop() }
        let played = try events.waitFor("the outcome after the restart", timeout: 30) {
            $0["request_id"] as? String == "cut-1" && $0["outcome"] as? String == "played"
        }
        #expect(played.first?["id"] as? String != nil)
        try Broker.publish("herald/\(hub.name)/announce", #"{"clip": "ding", "request_id": "cut-2"}"#)
        try events.waitFor("the next message's outcome") { $0["request_id"] as? String == "cut-2" && $0["outcome"] as? String == "played" }
        #expect(events.messages.filter { $0["request_id"] as? String == "cut-1" && $0["outcome"] as? String == "played" }.count == 1,
                "reported once: \(events.messages)")
        let rows = try hub.harness.history().filter { $0["request_id"] as? String == "cut-1" }
        #expect(rows.count == 1 && rows.first?["outcome"] as? String == "played", "\(rows)")
    }

    @Test func aKilledHubIsShownOfflineByItsLastWill() throws {
        let hub = try hub()
        let daemon = try start(hub)
        #expect(try Broker.retained("herald/\(hub.name)/status")["state"] as? String == "online")
        daemon.crash()
        try SoundServer.waitFor("the will", timeout: 15) {
            try Broker.retained("herald/\(hub.name)/status")["state"] as? String == "offline"
        }
    }

    @Test func aGroupPublishIsSaidByEveryHubInTheGroup() throws {
        let group = "north-\(UUID().uuidString.prefix(6).lowercased())"
        let first = try hub(groups: [group]), second = try hub(groups: [group])
        let one = try start(first)
        defer { one.stop() }
        let two = try start(second)
        defer { two.stop() }
        try Broker.publish("herald/groups/\(group)/announce", #"{"clip": "ding", "request_id": "batch-1"}"#)
        for hub in [first, second] {
            try SoundServer.waitFor("\(hub.name) to play the group's message", timeout: 30) {
                try hub.harness.history().first?["outcome"] as? String == "played"
            }
        }
    }
}
}

extension Daemon {
    /// What the daemon wrote (its log), once it has exited: read to the end of its pipes.
    var output: String {
        [process.standardOutput, process.standardError].compactMap { ($0 as? Pipe)?.fileHandleForReading.readDataToEndOfFile() }
            .map { String(decoding: $0, as: UTF8.self) }.joined()
    }
}

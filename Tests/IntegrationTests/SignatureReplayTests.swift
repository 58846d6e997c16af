import Foundation
import Testing

/// Issue 42, the second ring of trust, against a real daemon, broker and sound server: a captured
/// signed payment is never said twice (after a SIGTERM, after a kill -9, on another token, over
/// MQTT), and an unsigned text saying a payment's words is refused like an unsigned payment.
extension OnTheTestSink.MQTTTests {
    static let tillToken = "till-token-0000000001", otherToken = "other-token-000000002", adminToken = "admin-token-000000003"

    /// A hub with two announce tokens, a signing secret and signed payments required.
    func signingHub() throws -> (harness: HeraldHarness, port: Int, name: String) {
        let hub = try hub(api: """
              tokens:
                \(Self.tillToken): announce
                \(Self.otherToken): announce
                \(Self.adminToken): admin
              signing_secrets:
                till_file: till.secret
              require_signature: [payment]
            """)
        try "5d41402abc4b2a76b9719d911017c592\n".write(toFile: hub.harness.folder + "/till.secret", atomically: true, encoding: .utf8)
        return hub
    }

    /// Starts the daemon and waits for its MQTT link, reading the status with the admin token.
    func startSigning(_ hub: (harness: HeraldHarness, port: Int, name: String)) throws -> Daemon {
        let daemon = try Daemon(hub.harness, port: hub.port)
        // Stopped when the link never connects: a daemon left behind would outlive the test run.
        var connected = false
        defer { if !connected { daemon.stop() } }
        try SoundServer.waitFor("the MQTT link to connect", timeout: 15) {
            let (_, data, _) = Daemon.rawRequest("GET", daemon.base + "/v1/status", headers: ["Authorization": "Bearer \(Self.adminToken)"])
            let status = data.flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]
            return (status?["mqtt"] as? [String: Any])?["state"] as? String == "connected"
        }
        connected = true
        return daemon
    }

    func post(_ daemon: Daemon, _ body: String, token: String, signature: String? = nil) -> (Int, String) {
        var headers = ["Authorization": "Bearer \(token)"]
        if let signature { headers["Herald-Signature"] = signature }
        let (status, data, _) = Daemon.rawRequest("POST", daemon.base + "/v1/announcements", body, headers: headers)
        return (status, String(decoding: data ?? Data(), as: UTF8.self))
    }

    /// A captured signed payment is refused after SIGTERM and kill -9, on another token, from
    /// HTTP to MQTT and from MQTT to HTTP; the same request (its token and id) gets the original.
    @Test func aCapturedSignedPaymentIsRefusedAfterARestartOnAnotherTokenAndOverMQTT() throws {
        let hub = try signingHub()
        let secretFile = hub.harness.folder + "/till.secret"
        let once = #"{"payment": {"amount": "7.25"}}"#
        let withID = #"{"payment": {"amount": "8.50"}, "request_id": "till-1/0042"}"#
        let onceSignature = try sign(once, secretFile: secretFile, in: hub.harness.folder)
        let idSignature = try sign(withID, secretFile: secretFile, in: hub.harness.folder)
        var daemon = try startSigning(hub)
        #expect(post(daemon, once, token: Self.tillToken, signature: onceSignature).0 == 202)
        #expect(post(daemon, withID, token: Self.tillToken, signature: idSignature).0 == 202)
        try SoundServer.waitFor("both payments to be said", timeout: 60) {
            try hub.harness.history().filter { $0["outcome"] as? String == "played" }.count == 2
        }
        // After each kind of stop, the same bytes and header: refused on any token; only the same
        // request (same token, same request id) is answered, with the original.
        for stop in ["SIGTERM", "kill -9"] {
            if stop == "SIGTERM" { daemon.stop() } else { daemon.crash() }
            daemon = try startSigning(hub)
            for token in [Self.tillToken, Self.otherToken] {
                let (status, answer) = post(daemon, once, token: token, signature: onceSignature)
                #expect(status == 401 && answer.contains("already used"), "after \(stop), token \(token.prefix(5)): \(status) \(answer)")
            }
            let (again, original) = post(daemon, withID, token: Self.tillToken, signature: idSignature)
            #expect(again == 200 && original.contains("0042") && original.contains("\"played\""), "after \(stop), the same request: \(again) \(original)")
            let (stolen, answer) = post(daemon, withID, token: Self.otherToken, signature: idSignature)
            #expect(stolen == 401 && answer.contains("already used"), "after \(stop), on another token: \(stolen) \(answer)")
        }
        // And from HTTP to MQTT: the broker's copy carries the same signature.
        let events = try Subscription("herald/\(hub.name)/events")
        try Broker.publishSigned("herald/\(hub.name)/announce", withID, signature: idSignature)
        let refused = try events.waitFor("the MQTT copy's refusal") { $0["request_id"] as? String == "till-1/0042" }[0]
        #expect(refused["outcome"] as? String == "error" && (refused["error"] as? String)?.contains("already used") == true, "\(refused)")
        // And from MQTT to HTTP: a payment signed and said over MQTT, its copy posted over HTTP.
        let overMQTT = #"{"payment": {"amount": "9.75"}, "request_id": "till-1/0043"}"#
        let mqttSignature = try sign(overMQTT, secretFile: secretFile, in: hub.harness.folder)
        try Broker.publishSigned("herald/\(hub.name)/announce", overMQTT, signature: mqttSignature)
        try SoundServer.waitFor("the MQTT payment said", timeout: 60) {
            try hub.harness.history().contains { $0["request_id"] as? String == "till-1/0043" && $0["outcome"] as? String == "played" }
        }
        for token in [Self.tillToken, Self.otherToken] {
            let (status, answer) = post(daemon, overMQTT, token: token, signature: mqttSignature)
            #expect(status == 401 && answer.contains("already used"), "MQTT's copy over HTTP, token \(token.prefix(5)): \(status) \(answer)")
        }
        daemon.stop()
        let payments = try hub.harness.history().filter { $0["body_kind"] as? String == "payment" }
        #expect(payments.count == 3 && payments.allSatisfy { $0["outcome"] as? String == "played" }, "said once each: \(payments)")
    }

    /// The clerk hears the same words from a text as from a payment: where payments must be
    /// signed, an unsigned text or push saying a payment's words, in any language, is refused.
    @Test func anUnsignedTextSayingAPaymentIsRefusedWherePaymentsMustBeSigned() throws {
        let hub = try signingHub()
        let daemon = try startSigning(hub)
        defer { daemon.stop() }
        for text in ["Payment received: one thousand dollars", "Pago recibido: mil pesos", "收款一千元", "3 payments received, total ninety dollars"] {
            let (status, answer) = post(daemon, #"{"text": "\#(text)"}"#, token: Self.tillToken)
            #expect(status == 401 && answer.contains("Herald-Signature") && answer.contains("payment"), "\(text): \(status) \(answer)")
        }
        let (push, pushAnswer, _) = Daemon.rawRequest("POST", daemon.base + "/v1/push", #"{"text": "Zahlung erhalten: tausend Euro"}"#,
                                                   headers: ["Authorization": "Bearer \(Self.tillToken)"])
        #expect(push == 401, "\(String(decoding: pushAnswer ?? Data(), as: UTF8.self))")
        let events = try Subscription("herald/\(hub.name)/events")
        try Broker.publish("herald/\(hub.name)/announce", #"{"text": "Payment received: fifty dollars", "request_id": "mqtt-fake"}"#)
        let refused = try events.waitFor("the MQTT text's refusal") { $0["request_id"] as? String == "mqtt-fake" }[0]
        #expect(refused["outcome"] as? String == "error" && refused["field"] as? String == "herald-signature", "\(refused)")
        // Other texts pass, and so does a payment's text the backend signed.
        #expect(post(daemon, #"{"text": "Order forty two is ready"}"#, token: Self.tillToken).0 == 202)
        let signedText = #"{"text": "Payment received: twelve dollars"}"#
        let signature = try sign(signedText, secretFile: hub.harness.folder + "/till.secret", in: hub.harness.folder)
        #expect(post(daemon, signedText, token: Self.tillToken, signature: signature).0 == 202)
        let texts = try hub.harness.history().map { $0["body"] as? String ?? "" }
        #expect(Set(texts) == ["Order forty two is ready", "Payment received: twelve dollars"], "\(texts)")
    }
}

extension OnTheTestSink.MQTTTests {
    /// A signed reminder is said later, by the daemon, so no announcement row carries its
    /// signature: it is kept apart until it expires, and a copy is refused after a restart too.
    @Test func aCapturedSignedReminderIsRefusedAfterARestart() throws {
        let hub = try signingHub()
        let format = DateFormatter()
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        let due = format.string(from: Date().addingTimeInterval(3_600))
        let body = #"{"text": "Time for the evening tablets", "time_zone": "UTC", "schedule": {"at": "\#(due)"}}"#
        let signature = try sign(body, secretFile: hub.harness.folder + "/till.secret", in: hub.harness.folder)
        func create(_ daemon: Daemon) -> (Int, String) {
            let (status, data, _) = Daemon.rawRequest("POST", daemon.base + "/v1/reminders", body,
                                                      headers: ["Authorization": "Bearer \(Self.adminToken)", "Herald-Signature": signature])
            return (status, String(decoding: data ?? Data(), as: UTF8.self))
        }
        var daemon = try startSigning(hub)
        #expect(create(daemon).0 == 201)
        #expect(create(daemon).0 == 401, "the same copy at once")
        for stop in ["SIGTERM", "kill -9"] {
            if stop == "SIGTERM" { daemon.stop() } else { daemon.crash() }
            daemon = try startSigning(hub)
            let (status, answer) = create(daemon)
            #expect(status == 401 && answer.contains("already used"), "after \(stop): \(status) \(answer)")
        }
        let (_, listed, _) = Daemon.rawRequest("GET", daemon.base + "/v1/reminders", headers: ["Authorization": "Bearer \(Self.adminToken)"])
        daemon.stop()
        let reminders = (listed.flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [[String: Any]]) ?? []
        #expect(reminders.count == 1, "made once: \(reminders)")
    }
}

import CMosquitto
import Foundation
import Synchronization

/// What the C callbacks reach through the handle's user data; it lives as long as the client,
/// which destroys the handle (and so every registration) before it goes. Every method but the
/// accessors runs on the loop thread, from inside a libmosquitto call.
final class MosquittoCallbacks: Sendable {
    let continuation: AsyncStream<MosquittoClient.Event>.Continuation
    let subscriptions: [String]
    let retainAsPublished: Bool
    let onReceive: MosquittoClient.Receiver?
    private let connectedNow = Atomic<Bool>(false)
    private let refusal = Mutex<String?>(nil)
    /// libmosquitto's error lines since the last `takeLibraryErrors`, the last few only.
    private let libraryErrors = Mutex<[String]>([])
    /// What each SUBSCRIBE and PUBLISH still waiting for its answer was, by message id, so a
    /// refusal can name its topic.
    private let waiting = Mutex<[Int32: String]>([:])
    /// PUBACKs received so far (whatever their reason code).
    let acknowledgedCount = Atomic<Int>(0)

    init(continuation: AsyncStream<MosquittoClient.Event>.Continuation, subscriptions: [String], retainAsPublished: Bool,
         onReceive: MosquittoClient.Receiver? = nil) {
        self.continuation = continuation
        self.onReceive = onReceive
        self.subscriptions = subscriptions
        self.retainAsPublished = retainAsPublished
    }

    var isConnected: Bool { connectedNow.load(ordering: .acquiring) }

    func yield(_ event: MosquittoClient.Event) { continuation.yield(event) }
    func finish() { continuation.finish() }

    /// Why the broker last refused a CONNECT or ended a connection, once.
    func takeRefusal() -> String? { refusal.withLock { value in defer { value = nil }; return value } }

    func takeLibraryErrors() -> String? {
        let lines = libraryErrors.withLock { lines in defer { lines = [] }; return lines }
        return lines.isEmpty ? nil : lines.joined(separator: "; ")
    }

    /// Remembers what message `mid` was. A broker that answers before this runs (loopback, a
    /// publish from another thread) leaves the refusal unnamed, never wrong: ids are removed when
    /// answered, and the table is bounded.
    func expect(mid: Int32, _ operation: String) {
        waiting.withLock { table in
            if table.count > 1_000 { table.removeAll() }
            table[mid] = operation
        }
    }

    private func answered(mid: Int32) -> String? { waiting.withLock { $0.removeValue(forKey: mid) } }

    func connected(_ mosq: OpaquePointer?, code: Int32) {
        guard code == 0 else {
            var reason = "the broker refused the connection: " + String(cString: mosquitto_reason_string(code))
            if code == Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue) {
                reason += " (Herald speaks MQTT 5: Mosquitto 1.6 or later, or another MQTT 5 broker)"
            }
            refusal.withLock { $0 = reason }
            return
        }
        // Subscribing on every connect, not once: a broker that lost its state (no persistence)
        // still gets the subscriptions back. "Retain as published" keeps the retain flag on live
        // deliveries too, so a retained publish is known for what it is however it arrives.
        let options = retainAsPublished ? Int32(MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue) : 0
        for topic in subscriptions {
            var mid: Int32 = 0
            let rc = mosquitto_subscribe_v5(mosq, &mid, topic, 1, options, nil)
            if rc == MosquittoError.success {
                expect(mid: mid, "subscription to \(topic)")
            } else {
                continuation.yield(.refused(MosquittoError(rc, "subscribe to \(topic)").description))
            }
        }
        connectedNow.store(true, ordering: .releasing)
        continuation.yield(.connected)
    }

    /// `code` is a libmosquitto error for a lost connection, or the reason code of the broker's
    /// DISCONNECT (0x80 and up: "Session taken over" when another client uses the hub's id).
    func disconnected(code: Int32) {
        connectedNow.store(false, ordering: .releasing)
        if code >= 0x80 {
            refusal.withLock { $0 = "the broker ended the connection: " + String(cString: mosquitto_reason_string(code)) }
        }
    }

    /// SUBACK: one reason code per topic, 0x80 and up for a refusal.
    func subscribed(mid: Int32, codes: [Int32]) {
        let what = answered(mid: mid) ?? "a subscription"
        for code in codes where code >= 0x80 {
            continuation.yield(.refused("the broker refused the \(what): \(String(cString: mosquitto_reason_string(code)))"))
        }
    }

    /// PUBACK: an MQTT 5 broker says when its ACL dropped what Herald published.
    func published(mid: Int32, reason: Int32) {
        let what = answered(mid: mid) ?? "message \(mid)"
        if reason >= 0x80 {
            continuation.yield(.refused("the broker refused the \(what): \(String(cString: mosquitto_reason_string(reason)))"))
        }
        acknowledgedCount.add(1, ordering: .releasing)
        continuation.yield(.acknowledged(mid: mid, reason: reason))
    }

    func received(_ message: mosquitto_message, properties: OpaquePointer?) {
        let topic = message.topic.map { String(cString: $0) } ?? ""
        let payload = message.payload.map {
            Array(UnsafeRawBufferPointer(start: $0, count: Int(message.payloadlen)))
        } ?? []
        let signatures = Self.userProperties(named: MosquittoClient.signatureProperty, in: properties)
        var received = MosquittoClient.Message(topic: topic, payload: payload, retained: message.retain, signatures: signatures)
        onReceive?(&received)
        continuation.yield(.message(received))
    }

    func logged(level: Int32, _ text: String) {
        guard level == herald_mosq_log_err else { return }
        libraryErrors.withLock { lines in
            lines.append(text)
            if lines.count > 3 { lines.removeFirst(lines.count - 3) }
        }
    }

    /// The values of every user property called `wanted` (compared without case, as the HTTP
    /// header is), in the order the publisher wrote them.
    static func userProperties(named wanted: String, in properties: OpaquePointer?) -> [String] {
        var values: [String] = []
        var cursor = properties
        var skipFirst = false
        while true {
            var name: UnsafeMutablePointer<CChar>?
            var value: UnsafeMutablePointer<CChar>?
            // Returns the property it read (NULL when there is none left), so the next call starts
            // there and skips it. `name` and `value` are malloc'd copies: ours to free.
            guard let found = mosquitto_property_read_string_pair(cursor, Int32(MQTT_PROP_USER_PROPERTY.rawValue),
                                                                  &name, &value, skipFirst) else { break }
            defer {
                free(name)
                free(value)
            }
            if let name, let value, String(cString: name).lowercased() == wanted {
                values.append(String(cString: value))
            }
            cursor = found
            skipFirst = true
        }
        return values
    }
}

import CMosquitto
import Foundation
import HeraldConfig
import HeraldCore
import Synchronization

/// The one owner of a libmosquitto handle speaking MQTT 5: configures it, runs its network loop on
/// a thread of its own (connecting, reconnecting with backoff) and hands what happens there to
/// Swift concurrency through `events`. `stop` ends the loop; the handle is destroyed with the object.
///
/// `@unchecked Sendable`: the handle is shared between the loop thread and callers of `publish`
/// and `stop`, which libmosquitto allows (its calls lock the handle's own mutexes once
/// `mosquitto_threaded_set` says a thread of ours runs the loop); `connectProperties` is touched
/// only by `init`, the loop thread and `deinit`; the rest is immutable or atomic.
///
/// Why a loop of our own rather than `mosquitto_loop_start` with `mosquitto_reconnect_delay_set`:
/// libmosquitto's `mosquitto_loop_forever` returns for good on a TLS, authentication or name
/// lookup error (a hub that boots before its network, a broker certificate being renewed), its
/// backoff counts whole seconds, and it reports nothing between attempts. A hub behind NAT must
/// keep trying whatever happened, and say why in `/v1/status` each time.
package final class MosquittoClient: @unchecked Sendable {
    package enum Event: Sendable {
        /// CONNACK accepted and the subscriptions sent.
        case connected
        /// The attempt failed or the connection dropped; the next attempt comes after `retryIn`.
        case down(reason: String, retryIn: Duration)
        case message(Message)
        /// The broker answered a SUBSCRIBE or a PUBLISH with a failure (its ACL, most often); the
        /// link stays up. Says what was refused and why.
        case refused(String)
        /// The broker's PUBACK for the message `publish` returned this id, with its reason code:
        /// below 0x80 it has it; from 0x80 on it refused it (a `refused` event came just before).
        case acknowledged(mid: Int32, reason: Int32)
    }

    /// One PUBLISH as the broker delivered it.
    package struct Message: Sendable {
        package var topic: String
        package var payload: [UInt8]
        /// The retain flag as its publisher set it: Herald subscribes with "retain as published",
        /// so this holds for a live delivery too, not only for one handed over at subscribe.
        package var retained: Bool
        /// Every MQTT 5 user property named `herald-signature` (any case), in order.
        package var signatures: [String]
        /// When the loop thread read it.
        package var receivedAt = Date()
        /// Set by the owner's `onReceive` (the fleet console's spool numbers what it wrote); 0 otherwise.
        package var sequence: UInt64 = 0
    }

    /// Run on the loop thread for each message, inside libmosquitto's message callback, before
    /// it is queued on `events`: libmosquitto acknowledges a QoS 1 message itself around that
    /// callback, so what must survive a crash of this process (the console's spool) is done
    /// here, not by whoever reads `events` later. Keep it short: the loop waits for it.
    package typealias Receiver = @Sendable (inout Message) -> Void

    /// What the loop thread reports, in order. Finishes when the loop has ended.
    package let events: AsyncStream<Event>
    private let handle: OpaquePointer
    private let callbacks: MosquittoCallbacks
    private let settings: MQTTSettings
    /// CONNECT's properties (the session expiry). libmosquitto keeps its own copy, sent again on
    /// every reconnect, once the first `mosquitto_connect_bind_v5` has read them.
    private var connectProperties: OpaquePointer?
    private let stopping = Atomic<Bool>(false)
    /// Entered when the loop thread starts, left when it ends: any number of callers may wait.
    private let loopRunning = DispatchGroup()
    private let started = Atomic<Bool>(false)
    /// Publishes handed to libmosquitto so far (`waitUntilAcknowledged` counts PUBACKs against it).
    private let published = Atomic<Int>(0)

    /// Between connection attempts: 0.5 s doubling up to 30 s, from the first again once connected.
    static let retries = Backoff(initial: .milliseconds(500), maximum: .seconds(30))
    /// The name of the user property that carries a payment's signature (`t=...,v1=...`).
    package static let signatureProperty = "herald-signature"
    /// Calls libmosquitto needs once per process (not thread-safe itself, hence a static let).
    private static let libraryReady: Int32 = mosquitto_lib_init()

    /// A configured client, not connected yet; `will` is published by the broker if the hub
    /// vanishes without saying goodbye.
    /// `subscriptions`: the topic filters subscribed at every connect (the hub's own by default).
    /// `retainAsPublished`: deliveries keep the retain flag they were published with (a hub: a
    /// retained announcement is refused however it arrives); false, only what the broker hands
    /// over at subscribe time is flagged retained (the console: an old heartbeat is known as old).
    /// `onReceive`: see `Receiver`.
    package init(settings: MQTTSettings, subscriptions: [String]? = nil, retainAsPublished: Bool = true,
                 will: (topic: String, payload: [UInt8]), onReceive: Receiver? = nil) throws(MosquittoError) {
        try check(Self.libraryReady, "initialise libmosquitto")
        let (events, continuation) = AsyncStream<Event>.makeStream()
        self.events = events
        self.settings = settings
        callbacks = MosquittoCallbacks(continuation: continuation, subscriptions: subscriptions ?? settings.subscriptions,
                                       retainAsPublished: retainAsPublished, onReceive: onReceive)
        // clean_start false (with the session expiry below): the broker keeps the subscriptions and
        // the QoS 1 messages sent while the hub is away, under this client id.
        guard let handle = mosquitto_new(settings.clientID, false, Unmanaged.passUnretained(callbacks).toOpaque()) else {
            throw MosquittoError(Int32(MOSQ_ERR_ERRNO.rawValue), "create an MQTT client for \(settings.clientID)")
        }
        self.handle = handle
        do {
            try configure(will: will)
        } catch {
            mosquitto_property_free_all(&connectProperties)
            mosquitto_destroy(handle)
            throw error
        }
    }

    private func configure(will: (topic: String, payload: [UInt8])) throws(MosquittoError) {
        try check(mosquitto_threaded_set(handle, true), "tell libmosquitto a thread runs its loop")
        try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5), "choose MQTT 5")
        try check(mosquitto_property_add_int32(&connectProperties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), settings.sessionExpiry),
                  "ask for a session that outlives the connection")
        if let maximumPacketSize = settings.maximumPacketSize {
            try check(mosquitto_property_add_int32(&connectProperties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), maximumPacketSize),
                      "ask for packets of at most \(maximumPacketSize) bytes")
        }
        if let username = settings.username {
            try check(mosquitto_username_pw_set(handle, username, settings.password), "set the MQTT username")
        }
        if settings.tls {
            if settings.caFile == nil {
                try check(mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "use the system's CA certificates")
            }
            if settings.caFile != nil || settings.certificateFile != nil {
                try check(mosquitto_tls_set(handle, settings.caFile, nil, settings.certificateFile, settings.keyFile, nil),
                          "set up TLS for \(settings.brokerURL)")
            }
        }
        let rc = will.payload.withUnsafeBytes {
            mosquitto_will_set(handle, will.topic, Int32($0.count), $0.baseAddress, 1, true)
        }
        try check(rc, "set the last will on \(will.topic)")
        mosquitto_connect_v5_callback_set(handle) { mosq, userdata, code, _, _ in
            guard let userdata else { return }
            Unmanaged<MosquittoCallbacks>.fromOpaque(userdata).takeUnretainedValue().connected(mosq, code: code)
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, userdata, code, _ in
            guard let userdata else { return }
            Unmanaged<MosquittoCallbacks>.fromOpaque(userdata).takeUnretainedValue().disconnected(code: code)
        }
        mosquitto_message_v5_callback_set(handle) { _, userdata, message, properties in
            guard let userdata, let message else { return }
            Unmanaged<MosquittoCallbacks>.fromOpaque(userdata).takeUnretainedValue().received(message.pointee, properties: properties)
        }
        mosquitto_subscribe_v5_callback_set(handle) { _, userdata, mid, count, granted, _ in
            guard let userdata else { return }
            let codes = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(count, 0)))) } ?? []
            Unmanaged<MosquittoCallbacks>.fromOpaque(userdata).takeUnretainedValue().subscribed(mid: mid, codes: codes)
        }
        mosquitto_publish_v5_callback_set(handle) { _, userdata, mid, reason, _ in
            guard let userdata else { return }
            Unmanaged<MosquittoCallbacks>.fromOpaque(userdata).takeUnretainedValue().published(mid: mid, reason: reason)
        }
        mosquitto_log_callback_set(handle) { _, userdata, level, text in
            guard let userdata, let text else { return }
            Unmanaged<MosquittoCallbacks>.fromOpaque(userdata).takeUnretainedValue().logged(level: level, String(cString: text))
        }
    }

    deinit {
        // The loop thread holds the client while it runs, so it has ended by now (or never began).
        mosquitto_destroy(handle)
        mosquitto_property_free_all(&connectProperties)
    }

    /// Starts the network loop thread: connect, then keep connected until `stop`, which the
    /// owner must call (the thread keeps the client alive until then).
    package func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        loopRunning.enter()
        let thread = Thread { [self] in runLoop() }
        thread.name = "herald-mqtt"
        thread.start()
    }

    /// Publishes `payload` (QoS 1) and returns its message id, which `Event.acknowledged` names
    /// once the broker has it. Throws when the broker is not connected: the caller keeps it.
    @discardableResult
    package func publish(_ topic: String, _ payload: [UInt8], retain: Bool = false) throws(MosquittoError) -> Int32 {
        guard callbacks.isConnected else { throw MosquittoError(MosquittoError.noConnection, "publish to \(topic)") }
        var mid: Int32 = 0
        let rc = payload.withUnsafeBytes {
            mosquitto_publish(handle, &mid, topic, Int32($0.count), $0.baseAddress, 1, retain)
        }
        try check(rc, "publish to \(topic)")
        published.add(1, ordering: .releasing)
        callbacks.expect(mid: mid, "publish to \(topic)")
        return mid
    }

    /// Waits (blocking, at most `timeout`) until the broker has acknowledged every publish so
    /// far, across a reconnect (libmosquitto sends unanswered QoS 1 messages again); false when
    /// some are still unanswered at the end.
    /// For a client that publishes much and then stops, so `stop` does not cut its queue short.
    package func waitUntilAcknowledged(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while callbacks.acknowledgedCount.load(ordering: .acquiring) < published.load(ordering: .acquiring) {
            guard ContinuousClock.now < deadline else { return false }
            usleep(10_000)
        }
        return true
    }

    package var isConnected: Bool { callbacks.isConnected }

    /// Sends `goodbye` (retained) if connected, disconnects cleanly (so the broker keeps the will
    /// to itself), waits for the loop thread to end (at most about 2 s) and finishes `events`.
    /// `endSession`: the DISCONNECT sets the session expiry to 0, so the broker drops the session
    /// now rather than keep it (and queue for it) for `sessionExpiry`.
    /// Any number of calls; only the first says goodbye. Blocks: call it off the cooperative pool.
    package func stop(goodbye: (topic: String, payload: [UInt8])?, endSession: Bool = false) {
        if started.load(ordering: .acquiring) && !stopping.load(ordering: .acquiring) {
            if let goodbye { _ = try? publish(goodbye.topic, goodbye.payload, retain: true) }
            if !stopping.exchange(true, ordering: .acquiringAndReleasing) {
                // Queued after the goodbye, so the broker reads it first; NO_CONN when already down,
                // which is what stopping wants anyway.
                if endSession && settings.sessionExpiry > 0 {
                    var properties: OpaquePointer?
                    _ = mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), 0)
                    _ = mosquitto_disconnect_v5(handle, 0, properties)
                    mosquitto_property_free_all(&properties)
                } else {
                    _ = mosquitto_disconnect(handle)
                }
            }
        }
        stopping.store(true, ordering: .releasing)
        // The loop ends within its stop deadline (2 s) plus one 100 ms turn; 5 s is a safety net
        // (a first connect to a host that drops packets blocks until the kernel gives up).
        _ = loopRunning.wait(timeout: .now() + 5)
        callbacks.finish()
    }

    // MARK: - The loop thread

    private func runLoop() {
        defer { loopRunning.leave() }
        var retries = Self.retries
        var stopDeadline: ContinuousClock.Instant?
        // The only way to hand libmosquitto CONNECT properties; it keeps them for every reconnect,
        // also when this first attempt fails. Blocking only for the TCP connect itself.
        var rc = mosquitto_connect_bind_v5(handle, settings.host, Int32(settings.port), Int32(settings.keepalive.inSeconds),
                                           nil, connectProperties)
        while true {
            if stopping.load(ordering: .acquiring) {
                // Let the goodbye and DISCONNECT go out before ending, but not forever.
                let deadline = stopDeadline ?? ContinuousClock.now + .seconds(2)
                stopDeadline = deadline
                if !callbacks.isConnected || rc != MosquittoError.success || ContinuousClock.now > deadline { return }
            }
            if rc == MosquittoError.success {
                rc = mosquitto_loop(handle, 100, 1)
                if callbacks.isConnected { retries.reset() }
                continue
            }
            if stopping.load(ordering: .acquiring) { return }
            let error = MosquittoError(rc, "connect to \(settings.brokerURL)")
            var reason = callbacks.takeRefusal() ?? error.message
            // libmosquitto's own words, such as OpenSSL's "certificate verify failed".
            if let detail = callbacks.takeLibraryErrors() { reason += " (\(detail))" }
            let retry = retries.next()
            callbacks.yield(.down(reason: reason, retryIn: retry))
            // Sleeps in slices so `stop` never waits for a long backoff.
            let wake = ContinuousClock.now + retry
            while ContinuousClock.now < wake && !stopping.load(ordering: .acquiring) { usleep(50_000) }
            if stopping.load(ordering: .acquiring) { return }
            // Only what this attempt logs belongs to its reason.
            _ = callbacks.takeLibraryErrors()
            rc = mosquitto_reconnect_async(handle)
        }
    }
}

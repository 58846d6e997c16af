import CMosquitto
import Foundation
import HeraldConfig
import HeraldCore
import Synchronization

/// The one owner of a libmosquitto handle: configures it, runs its network loop on a thread of its
/// own (connecting, reconnecting with backoff) and hands what happens there to Swift concurrency
/// through `events`. `stop` ends the loop; the handle is destroyed with the object.
///
/// `@unchecked Sendable`: the handle is shared between the loop thread and callers of `publish`
/// and `stop`, which libmosquitto allows (its calls lock the handle's own mutexes once
/// `mosquitto_threaded_set` says a thread of ours runs the loop); the rest is immutable or atomic.
final class MosquittoClient: @unchecked Sendable {
    enum Event: Sendable {
        /// CONNACK accepted and the subscriptions sent.
        case connected
        /// The attempt failed or the connection dropped; the next attempt comes after `retryIn`.
        case down(reason: String, retryIn: Duration)
        case message(topic: String, payload: [UInt8])
    }

    /// What the loop thread reports, in order. Finishes when the loop has ended.
    let events: AsyncStream<Event>
    private let handle: OpaquePointer
    private let callbacks: Callbacks
    private let settings: MQTTSettings
    private let stopping = Atomic<Bool>(false)
    /// Entered when the loop thread starts, left when it ends: any number of callers may wait.
    private let loopRunning = DispatchGroup()
    private let started = Atomic<Bool>(false)

    static let firstRetry: Duration = .milliseconds(500)
    static let longestRetry: Duration = .seconds(30)
    /// Calls libmosquitto needs once per process (not thread-safe itself, hence a static let).
    private static let libraryReady: Int32 = mosquitto_lib_init()

    /// A configured client, not connected yet; `will` is published by the broker if the hub
    /// vanishes without saying goodbye.
    init(settings: MQTTSettings, will: (topic: String, payload: [UInt8])) throws(MosquittoError) {
        try check(Self.libraryReady, "initialise libmosquitto")
        let (events, continuation) = AsyncStream<Event>.makeStream()
        self.events = events
        self.settings = settings
        callbacks = Callbacks(continuation: continuation, subscriptions: settings.subscriptions)
        // clean_session false: the broker keeps the subscriptions and the QoS 1 messages sent
        // while the hub is away, under this client id.
        guard let handle = mosquitto_new(settings.clientID, false, Unmanaged.passUnretained(callbacks).toOpaque()) else {
            throw MosquittoError(Int32(MOSQ_ERR_ERRNO.rawValue), "create an MQTT client for \(settings.clientID)")
        }
        self.handle = handle
        do {
            try configure(will: will)
        } catch {
            mosquitto_destroy(handle)
            throw error
        }
    }

    private func configure(will: (topic: String, payload: [UInt8])) throws(MosquittoError) {
        try check(mosquitto_threaded_set(handle, true), "tell libmosquitto a thread runs its loop")
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
        mosquitto_connect_callback_set(handle) { mosq, userdata, code in
            guard let userdata else { return }
            Unmanaged<Callbacks>.fromOpaque(userdata).takeUnretainedValue().connected(mosq, code: code)
        }
        mosquitto_disconnect_callback_set(handle) { _, userdata, code in
            guard let userdata else { return }
            Unmanaged<Callbacks>.fromOpaque(userdata).takeUnretainedValue().disconnected(code: code)
        }
        mosquitto_message_callback_set(handle) { _, userdata, message in
            guard let userdata, let message else { return }
            Unmanaged<Callbacks>.fromOpaque(userdata).takeUnretainedValue().received(message.pointee)
        }
    }

    deinit {
        // The loop thread holds the client while it runs, so it has ended by now (or never began).
        mosquitto_destroy(handle)
    }

    /// Starts the network loop thread: connect, then keep connected until `stop`, which the
    /// owner must call (the thread keeps the client alive until then).
    func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        loopRunning.enter()
        let thread = Thread { [self] in runLoop() }
        thread.name = "herald-mqtt"
        thread.start()
    }

    /// Publishes `payload` (QoS 1). Throws when the broker is not connected: the caller keeps it.
    func publish(_ topic: String, _ payload: [UInt8], retain: Bool = false) throws(MosquittoError) {
        guard callbacks.isConnected else { throw MosquittoError(MosquittoError.noConnection, "publish to \(topic)") }
        let rc = payload.withUnsafeBytes {
            mosquitto_publish(handle, nil, topic, Int32($0.count), $0.baseAddress, 1, retain)
        }
        try check(rc, "publish to \(topic)")
    }

    var isConnected: Bool { callbacks.isConnected }

    /// Sends `goodbye` (retained) if connected, disconnects cleanly (so the broker keeps the will
    /// to itself), waits for the loop thread to end (at most about 2 s) and finishes `events`.
    /// Any number of calls; only the first says goodbye. Blocks: call it off the cooperative pool.
    func stop(goodbye: (topic: String, payload: [UInt8])?) {
        if started.load(ordering: .acquiring) && !stopping.load(ordering: .acquiring) {
            if let goodbye { try? publish(goodbye.topic, goodbye.payload, retain: true) }
            if !stopping.exchange(true, ordering: .acquiringAndReleasing) {
                // Queued after the goodbye, so the broker reads it first; NO_CONN when already down.
                _ = mosquitto_disconnect(handle)
            }
        }
        stopping.store(true, ordering: .releasing)
        // The loop ends within its stop deadline (2 s) plus one 100 ms turn; 5 s is a safety net.
        _ = loopRunning.wait(timeout: .now() + 5)
        callbacks.finish()
    }

    // MARK: - The loop thread

    private func runLoop() {
        defer { loopRunning.leave() }
        var retry = Self.firstRetry
        var stopDeadline: ContinuousClock.Instant?
        var rc = mosquitto_connect_async(handle, settings.host, Int32(settings.port), Int32(settings.keepalive.inSeconds))
        while true {
            if stopping.load(ordering: .acquiring) {
                // Let the goodbye and DISCONNECT go out before ending, but not forever.
                let deadline = stopDeadline ?? ContinuousClock.now + .seconds(2)
                stopDeadline = deadline
                if !callbacks.isConnected || rc != MosquittoError.success || ContinuousClock.now > deadline { return }
            }
            if rc == MosquittoError.success {
                rc = mosquitto_loop(handle, 100, 1)
                if callbacks.isConnected { retry = Self.firstRetry }
                continue
            }
            if stopping.load(ordering: .acquiring) { return }
            let error = MosquittoError(rc, "connect to \(settings.brokerURL)")
            callbacks.yield(.down(reason: callbacks.takeRefusal() ?? error.message, retryIn: retry))
            // Sleeps in slices so `stop` never waits for a long backoff.
            let wake = ContinuousClock.now + retry
            while ContinuousClock.now < wake && !stopping.load(ordering: .acquiring) { usleep(50_000) }
            if stopping.load(ordering: .acquiring) { return }
            retry = min(retry * 2, Self.longestRetry)
            rc = mosquitto_reconnect_async(handle)
        }
    }
}

/// What the C callbacks reach through the handle's user data; it lives as long as the client,
/// which destroys the handle (and so every registration) before it goes.
private final class Callbacks: Sendable {
    let continuation: AsyncStream<MosquittoClient.Event>.Continuation
    let subscriptions: [String]
    private let connectedNow = Atomic<Bool>(false)
    private let refusal = Mutex<String?>(nil)

    init(continuation: AsyncStream<MosquittoClient.Event>.Continuation, subscriptions: [String]) {
        self.continuation = continuation
        self.subscriptions = subscriptions
    }

    var isConnected: Bool { connectedNow.load(ordering: .acquiring) }

    func yield(_ event: MosquittoClient.Event) { continuation.yield(event) }
    func finish() { continuation.finish() }

    /// Why the broker last refused a CONNECT, once.
    func takeRefusal() -> String? { refusal.withLock { value in defer { value = nil }; return value } }

    /// On the loop thread, from inside `mosquitto_loop`.
    func connected(_ mosq: OpaquePointer?, code: Int32) {
        guard code == 0 else {
            refusal.withLock { $0 = "the broker refused the connection: " + String(cString: mosquitto_connack_string(code)) }
            return
        }
        // Subscribing on every connect, not once: a broker that lost its state (no persistence)
        // still gets the subscriptions back.
        for topic in subscriptions {
            let rc = mosquitto_subscribe(mosq, nil, topic, 1)
            if rc != MosquittoError.success {
                continuation.yield(.down(reason: MosquittoError(rc, "subscribe to \(topic)").description, retryIn: .zero))
            }
        }
        connectedNow.store(true, ordering: .releasing)
        continuation.yield(.connected)
    }

    func disconnected(code: Int32) {
        connectedNow.store(false, ordering: .releasing)
    }

    func received(_ message: mosquitto_message) {
        let topic = message.topic.map { String(cString: $0) } ?? ""
        let payload = message.payload.map {
            Array(UnsafeRawBufferPointer(start: $0, count: Int(message.payloadlen)))
        } ?? []
        continuation.yield(.message(topic: topic, payload: payload))
    }
}

import CPulse
import Foundation
import HeraldCore
import Logging
import Synchronization

/// The one owner of a libpulse threaded mainloop and its context.
///
/// Public entry points take the mainloop lock; callbacks run on the mainloop thread, where libpulse
/// already holds it. Every request has a timeout and is failed, never left hanging, when the
/// server goes away.
///
/// `@unchecked Sendable`: the C handles are only touched with the mainloop lock held (or from the
/// mainloop thread), and `subscribers` sits behind its own `Mutex`.
public final class PulseConnection: @unchecked Sendable {
    let mainloop: OpaquePointer
    /// The mainloop's lock, with its debug-only owner record (`assertLocked()`).
    let lock: MainloopLock
    let context: OpaquePointer
    /// How long any single request may take.
    public let requestTimeout: Duration
    let logger: Logger
    private var connectWaiter: CheckedContinuation<Void, any Error>?
    let subscribers = Mutex<[UUID: AsyncStream<SoundEvent>.Continuation]>([:])
    var subscribedToEvents = false
    /// The playback in progress, for pause and resume. Touched with the mainloop lock held.
    var activePlaybacks: [PulsePlayback] = []
    /// Each sink's start delay as last measured, for rooms in step. Touched with the lock held.
    let startDelays = SinkStartDelays()
    /// A corked stream kept for the next announcement (`keepWarm`). Touched with the lock held.
    var warmStream: WarmStream?
    /// This run of the server (`serverInstance()`), once known: a connection has one server run.
    let knownServerInstance = Mutex<UInt32?>(nil)

    /// Connects to `server`, else the one `PULSE_SERVER` names, else the user's default server.
    /// - Parameters:
    ///   - applicationName: the `application.name` the server shows for this client.
    ///   - server: a server address such as `unix:/run/user/0/pulse/native`; nil for the default.
    ///   - timeout: bound on connecting and on every later request.
    public init(applicationName: String = "Herald", server: String? = nil, timeout: Duration = .seconds(5),
                logger: Logger) async throws {
        guard let mainloop = pa_threaded_mainloop_new() else {
            throw SoundSystemError.noServer("pa_threaded_mainloop_new failed")
        }
        let properties = pa_proplist_new()
        for (key, value) in [(PA_PROP_APPLICATION_NAME, applicationName), (PA_PROP_APPLICATION_PROCESS_ID, "\(getpid())")]
        where pa_proplist_sets(properties, key, value) < 0 {
            // Refused only for an invalid key or a value that is not UTF-8.
            pa_proplist_free(properties)
            pa_threaded_mainloop_free(mainloop)
            throw SoundSystemError.operationFailed("cannot set the client property \(key) to '\(value)'")
        }
        guard let context = pa_context_new_with_proplist(
            pa_threaded_mainloop_get_api(mainloop), applicationName, properties)
        else {
            pa_proplist_free(properties)
            pa_threaded_mainloop_free(mainloop)
            throw SoundSystemError.noServer("pa_context_new failed")
        }
        pa_proplist_free(properties)
        self.mainloop = mainloop
        self.lock = MainloopLock(mainloop)
        self.context = context
        self.requestTimeout = timeout
        self.logger = logger
        try await connect(server: server)
        _ = await serverInstance()
    }

    deinit {
        let (lock, context, warm) = (lock, context, warmStream)
        if pa_threaded_mainloop_in_thread(mainloop) != 0 {
            // The last reference was dropped on the mainloop thread (by something a callback set
            // off, as the "connection ended" callback does when it finishes the event streams).
            // A mainloop cannot be stopped or freed from its own thread: that is done on another
            // one, once this callback has returned. The callbacks that would reach this object
            // are cleared now, while libpulse holds the lock here.
            pa_context_set_state_callback(context, nil, nil)
            pa_context_set_subscribe_callback(context, nil, nil)
            // Handed to one thread, which touches it only with the mainloop lock held.
            nonisolated(unsafe) let context = context
            Thread.detachNewThread { Self.tearDown(lock: lock, context: context, warmStream: warm) }
        } else {
            Self.tearDown(lock: lock, context: context, warmStream: warm)
        }
        for continuation in subscribers.withLock({ $0.values }) { continuation.finish() }
    }

    /// Disconnects and frees the context, stops and frees the mainloop: from any thread but the
    /// mainloop's.
    private static func tearDown(lock: MainloopLock, context: OpaquePointer, warmStream: WarmStream?) {
        lock.withLock {
            warmStream?.close()
            pa_context_set_state_callback(context, nil, nil)
            pa_context_set_subscribe_callback(context, nil, nil)
            pa_context_disconnect(context)
            pa_context_unref(context)
        }
        pa_threaded_mainloop_stop(lock.mainloop)
        pa_threaded_mainloop_free(lock.mainloop)
    }

    private func connect(server: String?) async throws {
        let unretained = Unmanaged.passUnretained(self).toOpaque()
        // Armed before the wait it bounds: a server that accepts the socket and never answers
        // must not hold the caller forever.
        let timeout = requestTimeout
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self?.withLock { self?.failConnect(.noServer("no answer within \(timeout)")) }
        }
        defer { timer.cancel() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            withLock {
                connectWaiter = continuation
                // `self` outlives the context: deinit clears this callback before freeing it.
                pa_context_set_state_callback(context, { context, userdata in
                    Unmanaged<PulseConnection>.fromOpaque(userdata!).takeUnretainedValue().contextStateChanged()
                }, unretained)
                if pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
                    failConnect(.noServer(Self.lastError(context)))
                }
            }
            if pa_threaded_mainloop_start(mainloop) < 0 {
                withLock { failConnect(.noServer("cannot start the mainloop thread")) }
            }
        }
    }

    /// True while the server answers; false for good once it went away (connect anew).
    public var isConnected: Bool { withLock { pa_context_get_state(context) == PA_CONTEXT_READY } }

    private func failConnect(_ error: SoundSystemError) {
        guard let waiter = connectWaiter else { return }
        connectWaiter = nil
        waiter.resume(throwing: error)
    }

    /// Runs on the mainloop thread.
    private func contextStateChanged() {
        let state = pa_context_get_state(context)
        switch state {
        case PA_CONTEXT_READY:
            if let waiter = connectWaiter {
                connectWaiter = nil
                waiter.resume()
            }
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            let reason = Self.lastError(context)
            failConnect(.noServer(reason))
            logger.warning("PulseAudio connection ended: \(reason)")
            for continuation in subscribers.withLock({ $0.values }) { continuation.finish() }
        default:
            break
        }
    }

    /// The library's message for the context's last error.
    static func lastError(_ context: OpaquePointer?) -> String {
        String(cString: pa_strerror(pa_context_errno(context)))
    }

    /// Runs `body` with the mainloop lock held: what every public entry point does first.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock(body)
    }

    /// Starts a libpulse operation and waits for its items, with the request timeout.
    ///
    /// `start` receives the context and the userdata to hand to the C call; it returns the
    /// operation, or nil when libpulse refused at once.
    func perform<Item: Sendable>(
        _ what: String, _ start: (OpaquePointer, UnsafeMutableRawPointer) -> OpaquePointer?
    ) async throws -> [Item] {
        try await send(what, start).wait(on: self)
    }

    /// Starts a libpulse operation now, to be awaited later with `wait(on:)`: requests sent one
    /// after another are on the wire together (each is answered when the server is done with it).
    func send<Item: Sendable>(
        _ what: String, _ start: (OpaquePointer, UnsafeMutableRawPointer) -> OpaquePointer?
    ) -> PulseRequest<Item> {
        let timeout = requestTimeout
        let request = PulseRequest<Item>(lock: lock)
        withLock {
            guard pa_context_get_state(context) == PA_CONTEXT_READY else {
                request.finish(.connectionLost("not connected (\(Self.lastError(context)))"))
                return
            }
            let userdata = Unmanaged.passRetained(request as PulseRequestBase).toOpaque()
            guard let operation = start(context, userdata) else {
                Unmanaged<PulseRequestBase>.fromOpaque(userdata).release()
                request.finish(.operationFailed("\(what): \(Self.lastError(context))"))
                return
            }
            request.operation = operation
            pa_operation_set_state_callback(operation, operationStateChanged, userdata)
            // A failed operation must not outlive its timeout: cancelling runs the state
            // callback, which resumes the caller and releases the request.
            request.timeout = Task { [weak self] in
                guard (try? await Task.sleep(for: timeout)) != nil, let self else { return }
                self.withLock {
                    request.error = .timedOut(what)
                    if let operation = request.operation { pa_operation_cancel(operation) }
                }
            }
        }
        return request
    }

    /// Runs a request whose callback is `successCallback`, and throws when the server refused.
    func performSuccess(
        _ what: String, _ start: (OpaquePointer, UnsafeMutableRawPointer) -> OpaquePointer?
    ) async throws {
        let results: [Bool] = try await perform(what, start)
        guard results.first == true else { throw SoundSystemError.operationFailed(what) }
    }
}

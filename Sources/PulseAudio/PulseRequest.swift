import CPulse
import HeraldCore

/// The type-erased face of an in-flight libpulse operation, so one non-generic C callback
/// (`operationStateChanged`) can finish any of them.
///
/// `@unchecked Sendable`: every field is read and written either with the threaded mainloop's lock
/// held by the caller or from the mainloop thread inside a callback, where libpulse holds that lock.
class PulseRequestBase: @unchecked Sendable {
    /// The connection's mainloop lock, checked in debug builds.
    let lock: MainloopLock
    var operation: OpaquePointer?
    var timeout: Task<Void, Never>?
    var error: SoundSystemError?
    /// What the request is about (a sink name), for error messages built in callbacks.
    var label = ""
    private(set) var finished = false

    init(lock: MainloopLock) {
        self.lock = lock
    }

    /// Resumes the waiting caller, at most once. Called with the lock held.
    func finish(_ failure: SoundSystemError?) {
        lock.assertLocked()
        guard !finished else { return }
        finished = true
        timeout?.cancel()
        resume(failure)
    }

    func resume(_ failure: SoundSystemError?) { fatalError("subclass") }
}

/// An operation that yields `Item`s (sink infos, a server info, a success flag).
///
/// Sent first and awaited after (`PulseConnection.send`, then `wait`), so several requests can be
/// on the wire at once (PipeWire's pulse server may answer them out of order).
final class PulseRequest<Item: Sendable>: PulseRequestBase, @unchecked Sendable {
    private var continuation: CheckedContinuation<[Item], any Error>?
    /// The outcome when it came before anyone waited.
    private var outcome: Result<[Item], SoundSystemError>?
    var items: [Item] = []

    override func resume(_ failure: SoundSystemError?) {
        let result: Result<[Item], SoundSystemError> = failure.map { .failure($0) } ?? .success(items)
        guard let continuation else {
            outcome = result
            return
        }
        self.continuation = nil
        continuation.resume(with: result.mapError { $0 as any Error })
    }

    /// Waits for the answer; `connection`'s lock guards the hand-over with the mainloop thread.
    func wait(on connection: PulseConnection) async throws -> [Item] {
        try await withCheckedThrowingContinuation { continuation in
            connection.withLock {
                if let outcome {
                    continuation.resume(with: outcome.mapError { $0 as any Error })
                } else {
                    self.continuation = continuation
                }
            }
        }
    }

    /// The request behind a callback's userdata pointer.
    static func from(_ userdata: UnsafeMutableRawPointer?) -> PulseRequest<Item> {
        // The pointer was made from a `PulseRequest<Item>` by `PulseConnection.perform`.
        Unmanaged<PulseRequestBase>.fromOpaque(userdata!).takeUnretainedValue() as! PulseRequest<Item>
    }
}

/// Called by libpulse when an operation is done or cancelled (also when the context dies): the one
/// place that completes a request and balances the `passRetained` of `PulseConnection.perform`.
let operationStateChanged: pa_operation_notify_cb_t = { operation, userdata in
    guard let operation, let userdata else { return }
    let state = pa_operation_get_state(operation)
    guard state != PA_OPERATION_RUNNING else { return }
    let unmanaged = Unmanaged<PulseRequestBase>.fromOpaque(userdata)
    let request = unmanaged.takeUnretainedValue()
    if state == PA_OPERATION_DONE {
        request.finish(request.error)
    } else {
        request.finish(request.error ?? .connectionLost("operation cancelled"))
    }
    pa_operation_set_state_callback(operation, nil, nil)
    request.operation = nil
    pa_operation_unref(operation)
    unmanaged.release()
}

/// A `pa_context_success_cb_t` for requests of type `PulseRequest<Bool>`.
let successCallback: pa_context_success_cb_t = { context, success, userdata in
    let request = PulseRequest<Bool>.from(userdata)
    if success != 0 {
        request.items.append(true)
    } else {
        request.error = .operationFailed(PulseConnection.lastError(context))
    }
}

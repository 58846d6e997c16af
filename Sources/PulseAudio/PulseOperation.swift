import CPulse
import HeraldCore

/// The libpulse calls that return an operation (`pa_stream_drain`, `pa_stream_cork`, …) return
/// NULL when they could not start one: the stream or the context is not ready, or an argument is
/// bad. No callback ever comes then, so a caller that waits for one must fail at once.
enum PulseOperation {
    /// `operation`, or the error libpulse gave (the context's `pa_strerror`) for not starting `what`.
    static func started(_ what: String, _ operation: OpaquePointer?, context: OpaquePointer?) throws(SoundSystemError) -> OpaquePointer {
        guard let operation else { throw .operationFailed("\(what): \(PulseConnection.lastError(context))") }
        return operation
    }

    /// Starts an operation whose reply nobody waits for, and lets go of it; throws when libpulse
    /// did not start it.
    static func send(_ what: String, _ operation: OpaquePointer?, context: OpaquePointer?) throws(SoundSystemError) {
        pa_operation_unref(try started(what, operation, context: context))
    }

    /// `send` for a stream's operation, with the stream's context.
    static func send(_ what: String, on stream: OpaquePointer, _ operation: OpaquePointer?) throws(SoundSystemError) {
        try send(what, operation, context: pa_stream_get_context(stream))
    }
}

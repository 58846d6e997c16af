import CPulse
import Foundation
import Synchronization

/// The lock of a libpulse threaded mainloop, taken only at the public entry points
/// (`PulseConnection.withLock`); callbacks run on the mainloop thread, where libpulse holds it.
///
/// In debug builds it records which thread holds it, so the methods documented "called with the
/// lock held" check it (`assertLocked()`), as GRDB's `SerializedDatabase` checks every access
/// (`GRDB/Core/SerializedDatabase.swift`): a call without the lock is a data race with the
/// mainloop thread that no test would reliably catch otherwise.
///
/// `@unchecked Sendable`: the mainloop is thread-safe to lock, and the record sits behind a `Mutex`.
final class MainloopLock: @unchecked Sendable {
    let mainloop: OpaquePointer
    #if DEBUG
    /// The thread inside `withLock`, and how deep (libpulse's mainloop lock is recursive).
    private let owner = Mutex<(thread: pthread_t, depth: Int)?>(nil)
    #endif

    init(_ mainloop: OpaquePointer) {
        self.mainloop = mainloop
    }

    /// Runs `body` with the mainloop lock held.
    ///
    /// On the mainloop thread itself (a callback, or something a callback set off: the last
    /// reference to an object dropped there, an `AsyncStream`'s termination handler run by
    /// `finish()`), libpulse holds the lock already, and taking it again aborts the process
    /// (`thread-mainloop.c: pa_threaded_mainloop_lock: !in_worker(m)`): `body` runs as it is.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        if pa_threaded_mainloop_in_thread(mainloop) != 0 { return try body() }
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        #if DEBUG
        let thread = pthread_self()
        owner.withLock { owner in
            if let held = owner, pthread_equal(held.thread, thread) != 0 {
                owner = (thread, held.depth + 1)
            } else {
                owner = (thread, 1)
            }
        }
        // Cleared before the unlock above (defers run last first).
        defer {
            owner.withLock { owner in
                if let held = owner { owner = held.depth > 1 ? (held.thread, held.depth - 1) : nil }
            }
        }
        #endif
        return try body()
    }

    /// Stops a debug build when the calling thread holds neither the lock (`withLock`) nor is the
    /// mainloop thread (a callback). Does nothing in release builds.
    func assertLocked(_ function: StaticString = #function, file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
        let thread = pthread_self()
        let held = owner.withLock { owner in owner.map { pthread_equal($0.thread, thread) != 0 } ?? false }
        precondition(held || pa_threaded_mainloop_in_thread(mainloop) != 0,
                     "\(function) needs the mainloop lock held", file: file, line: line)
        #endif
    }
}

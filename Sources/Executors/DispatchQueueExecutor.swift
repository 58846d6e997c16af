#if os(Linux)
@preconcurrency import Dispatch
#else
import Dispatch
#endif

/// A serial executor over a serial dispatch queue of its own, for an actor whose work blocks for
/// long stretches: espeak-ng synthesizes a sentence in one C call, and SQLite syncs the restore
/// journal to disk. On the cooperative pool, which has one thread per core, that work would hold
/// up the API, the queue and the sound connection; a serial queue of its own runs on a thread
/// libdispatch adds beside the pool, one job at a time, and gives its thread back when idle.
///
/// Serial, so it is also how a library with process-global state gets its one owner: espeak-ng
/// is one engine per process, and every call into it must stay on this one executor.
///
/// Modelled on GRDB's `DispatchQueueActor` (`GRDB/Core/DispatchQueueActor.swift`).
///
/// ```swift
/// actor Engine {
///     private nonisolated let executor = DispatchQueueExecutor(label: "herald-engine")
///     nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
/// }
/// ```
public final class DispatchQueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    /// Makes the queue, labelled `label` (debuggers and crash reports show it).
    public init(label: String) {
        queue = DispatchQueue(label: label)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` and the runtime's isolation checks see that code running on the
    /// queue is on this executor, and stops the process when it is not.
    public func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}

#if os(Linux) || os(Android) || os(Windows)
// Its one stored property is immutable and `DispatchQueue` is thread-safe; only on these systems
// is Dispatch not annotated for Sendable.
extension DispatchQueueExecutor: @unchecked Sendable {}
#endif

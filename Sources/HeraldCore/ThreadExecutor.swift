import Foundation
import Synchronization

/// A serial executor with a thread of its own, for an actor whose work blocks for long stretches
/// (espeak-ng synthesizes a sentence in one C call): on the cooperative pool, which has one
/// thread per core, that work would hold up the API, the queue and the sound connection.
public final class ThreadExecutor: SerialExecutor, @unchecked Sendable {  // State behind `lock`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    /// Starts the thread, named `name` (it shows in `top -H` and in debuggers).
    public init(name: String) {
        let thread = Thread { [unowned self] in self.runJobs() }
        thread.name = name
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedSerialExecutor()) }
        }
    }
}

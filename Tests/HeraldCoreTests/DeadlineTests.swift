import Dispatch
import HeraldCore
import Testing

/// `withDeadline`: the caller has its answer at the deadline, even from work that ignores
/// cancellation (postgres-nio's query written to a closing connection never ends).
struct DeadlineTests {
    struct TimedOut: Error {}

    /// Waits `seconds` on a dispatch timer: cancelling the task does not end it sooner.
    static func uncancellable(seconds: Double) async -> Int {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { continuation.resume(returning: 1) }
        }
    }

    @Test func workThatIgnoresCancellationStillTimesOutAtTheDeadline() async throws {
        let started = ContinuousClock.now
        await #expect(throws: TimedOut.self) {
            try await withDeadline(.milliseconds(100), timeoutError: { TimedOut() }) { await Self.uncancellable(seconds: 3) }
        }
        // Well before the work's own 3 s: the caller did not wait for it.
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test func workDoneInTimeGivesItsValueAndAnErrorGoesThrough() async throws {
        let value = try await withDeadline(.seconds(5), timeoutError: { TimedOut() }) { 42 }
        #expect(value == 42)
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await withDeadline(.seconds(5), timeoutError: { TimedOut() }) { () async throws -> Int in throw Refused() }
        }
    }

    @Test func aCancelledCallerIsAnsweredAtOnce() async throws {
        let caller = Task {
            try await withDeadline(.seconds(30), timeoutError: { TimedOut() }) { await Self.uncancellable(seconds: 3) }
        }
        try await Task.sleep(for: .milliseconds(50))
        let started = ContinuousClock.now
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(ContinuousClock.now - started < .seconds(2))
    }
}

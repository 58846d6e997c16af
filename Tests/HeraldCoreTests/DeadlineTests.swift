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

    // The work takes 60 s and the bounds are 20 s: the other unit tests run beside these on a
    // cooperative pool of two threads here, and some block a thread for seconds (CI once saw a
    // 100 ms deadline answered after 5.3 s). What is checked is that the caller never waits for
    // the work, not how fast the pool is.

    @Test func workThatIgnoresCancellationStillTimesOutAtTheDeadline() async throws {
        let started = ContinuousClock.now
        await #expect(throws: TimedOut.self) {
            try await withDeadline(.milliseconds(100), timeoutError: { TimedOut() }) { await Self.uncancellable(seconds: 60) }
        }
        #expect(ContinuousClock.now - started < .seconds(20), "answered long before the work's own 60 s")
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
            try await withDeadline(.seconds(120), timeoutError: { TimedOut() }) { await Self.uncancellable(seconds: 60) }
        }
        try await Task.sleep(for: .milliseconds(50))
        let started = ContinuousClock.now
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(ContinuousClock.now - started < .seconds(20), "answered long before the work's 60 s and the deadline's 120 s")
    }
}

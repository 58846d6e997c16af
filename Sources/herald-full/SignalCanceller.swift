import Synchronization
import UnixSignals
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT and SIGTERM into cancellation of one piece of work, so playback fades out and the
/// safeguard restores before the process exits.
enum SignalCanceller {
    /// The signal that came before `run` trapped them (`catchEarly`), or 0.
    private static let early = Atomic<Int32>(0)

    /// From the start of a command that plays: a Ctrl-C while the config loads and the sound server
    /// connects is kept for `run` instead of killing the process (found under load: one at 100 ms
    /// ended `herald play` with the signal). Not for `herald serve`, whose service group traps its own.
    static func catchEarly() {
        for number in [SIGINT, SIGTERM] {
            signal(number) { received in SignalCanceller.early.store(received, ordering: .relaxed) }
        }
    }

    /// Runs `work`, cancelling it on SIGINT or SIGTERM. The signals are trapped before `work`
    /// starts, so a Ctrl-C can never kill the process between a change to the sink and its restore;
    /// one that came before (`catchEarly`) cancels it at once.
    static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let task = Task { try await work() }
        let listener = Task {
            for await _ in signals { task.cancel() }
        }
        defer { listener.cancel() }
        // Checked after the trap is in place: a signal is either seen here or by the listener.
        if early.load(ordering: .relaxed) != 0 { task.cancel() }
        return try await task.value
    }
}

/// Exponential delays between the attempts of something that fails and is tried again (a sound
/// server, a broker, a database, a webhook, a Piper process): `initial`, then `factor` times the
/// last, never above `maximum`. A value, pure: the caller sleeps, and says when an attempt
/// succeeded (`reset`).
///
/// Jitter, when asked for, takes each delay down by up to `jitter` of itself, drawn from the
/// generator the caller hands `next(using:)`: many clients that lost the same server then do not
/// come back in step. Without it (`jitter` 0, the default) no number is drawn at all.
public struct Backoff: Sendable, Equatable {
    /// The first delay, and the one after `reset`.
    public let initial: Duration
    /// What each delay is multiplied by for the next.
    public let factor: Int
    /// The longest delay. Kept well inside `Duration`'s range: a delay stops growing once it is
    /// reached, so it never overflows however many attempts fail.
    public let maximum: Duration
    /// The share of a delay jitter may take off it, from 0 (none) to 1 (any delay down to zero).
    public let jitter: Double
    /// How many delays `next` handed out since the start or the last `reset`.
    public private(set) var attempt = 0

    public init(initial: Duration, factor: Int = 2, maximum: Duration, jitter: Double = 0) {
        precondition(initial > .zero && factor >= 1 && maximum >= initial, "a backoff grows from a positive first delay up to its maximum")
        precondition((0...1).contains(jitter), "jitter is a share of the delay, from 0 to 1")
        self.initial = initial
        self.factor = factor
        self.maximum = maximum
        self.jitter = jitter
    }

    /// The delay before the attempt after `attempt` failed ones (0: after the first failure),
    /// without jitter: `initial` times `factor` to the `attempt`, at most `maximum`.
    public func delay(attempt: Int) -> Duration {
        var delay = initial, step = 0
        while step < attempt && delay < maximum && factor > 1 {
            delay *= factor
            step += 1
        }
        return min(delay, maximum)
    }

    /// The delay `next` hands out now, without jitter; nothing changes.
    public var peek: Duration { delay(attempt: attempt) }

    /// The delay to wait before the next attempt, and counts it. With `jitter`, draws from
    /// the system's generator; `next(using:)` takes a generator of the caller's (a seeded one in tests).
    public mutating func next() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return next(using: &generator)
    }

    /// The delay to wait before the next attempt, less up to `jitter` of it drawn from `generator`.
    public mutating func next(using generator: inout some RandomNumberGenerator) -> Duration {
        let delay = peek
        attempt += 1
        guard jitter > 0 else { return delay }
        return delay * (1 - Double.random(in: 0...jitter, using: &generator))
    }

    /// An attempt succeeded: the next failure waits `initial` again.
    public mutating func reset() { attempt = 0 }
}

/// The rate cap on one console's webhook POSTs: a token bucket, `burst` at once, then one every
/// `interval`. Past it, notices wait in the database (still due, unclaimed) for the next token:
/// late, never lost. A broker outage that calls every hub offline at once reaches the webhook
/// as a steady stream, not a flood.
struct NoticeBudget: Sendable {
    let burst: Int
    let interval: Duration
    private var tokens: Int
    private var refilledAt: ContinuousClock.Instant

    init(burst: Int = 20, interval: Duration = .seconds(1), now: ContinuousClock.Instant) {
        self.burst = burst
        self.interval = interval
        tokens = burst
        refilledAt = now
    }

    /// Nil when a POST may go now, or how long until it may.
    mutating func wait(now: ContinuousClock.Instant) -> Duration? {
        let earned = Int((now - refilledAt) / interval)
        if earned > 0 {
            tokens = min(burst, tokens + earned)
            refilledAt = tokens == burst ? now : refilledAt + interval * earned
        }
        return tokens > 0 ? nil : interval - (now - refilledAt)
    }

    /// One POST went (or was tried): its token is spent.
    mutating func spend() { tokens = max(0, tokens - 1) }
}

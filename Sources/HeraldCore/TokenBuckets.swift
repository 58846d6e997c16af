import Synchronization

/// A token bucket per key (an API token, or a client address when there are no tokens):
/// `perMinute` requests a minute, with bursts up to that many. The rate is given at each call,
/// so a reload's `api.rate_per_minute` applies at once.
public final class TokenBuckets: Sendable {
    private let buckets = Mutex<[String: (level: Double, updated: ContinuousClock.Instant)]>([:])
    /// Beyond this many keys, the buckets that have refilled are forgotten (they hold nothing a
    /// fresh bucket would not), so a stream of new addresses cannot grow the table for ever.
    public static let keysKept = 4096

    public init() {}

    /// Takes one request from `key`'s bucket; false when it is empty.
    public func allow(_ key: String, perMinute: Int, now: ContinuousClock.Instant = .now) -> Bool {
        let rate = Double(perMinute)
        return buckets.withLock { buckets in
            if buckets.count >= Self.keysKept {
                buckets = buckets.filter { min(rate, $0.value.level + (now - $0.value.updated).inSeconds * rate / 60) < rate }
            }
            var bucket = buckets[key] ?? (rate, now)
            bucket.level = min(rate, bucket.level + (now - bucket.updated).inSeconds * rate / 60)
            bucket.updated = now
            let allowed = bucket.level >= 1
            if allowed { bucket.level -= 1 }
            buckets[key] = bucket
            return allowed
        }
    }

    /// Gives back the request `allow` took from `key`'s bucket: it was refused as malformed, and
    /// a flood of those must not use up a till's allowance (they cost the server next to nothing).
    public func refund(_ key: String, perMinute: Int) {
        buckets.withLock { buckets in
            guard var bucket = buckets[key] else { return }
            bucket.level = min(Double(perMinute), bucket.level + 1)
            buckets[key] = bucket
        }
    }
}

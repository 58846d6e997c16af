import Synchronization

/// A token bucket per API token: `perMinute` requests a minute, with bursts up to that many.
final class RateLimiter: Sendable {
    private let perMinute: Double
    private let buckets = Mutex<[String: (level: Double, updated: ContinuousClock.Instant)]>([:])

    init(perMinute: Int) { self.perMinute = Double(perMinute) }

    /// Takes one request from `key`'s bucket; false when it is empty.
    func allow(_ key: String, now: ContinuousClock.Instant = .now) -> Bool {
        buckets.withLock { buckets in
            var bucket = buckets[key] ?? (perMinute, now)
            let elapsed = now - bucket.updated
            bucket.level = min(perMinute, bucket.level + elapsed.inSeconds * perMinute / 60)
            bucket.updated = now
            guard bucket.level >= 1 else {
                buckets[key] = bucket
                return false
            }
            bucket.level -= 1
            buckets[key] = bucket
            return true
        }
    }
}

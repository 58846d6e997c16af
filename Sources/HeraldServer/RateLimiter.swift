import HeraldIntake
import HTTPTypes
import Hummingbird
import Synchronization

/// A token bucket per key (an API token, or a client address when there are no tokens):
/// `perMinute` requests a minute, with bursts up to that many. The rate is given at each call,
/// so a reload's `api.rate_per_minute` applies at once.
final class RateLimiter: Sendable {
    private let buckets = Mutex<[String: (level: Double, updated: ContinuousClock.Instant)]>([:])
    /// Beyond this many keys, the buckets that have refilled are forgotten (they hold nothing a
    /// fresh bucket would not), so a stream of new addresses cannot grow the table for ever.
    static let keysKept = 4096

    /// Takes one request from `key`'s bucket; false when it is empty.
    func allow(_ key: String, perMinute: Int, now: ContinuousClock.Instant = .now) -> Bool {
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
    /// a flood of those must not use up a till's allowance (they cost the daemon next to nothing).
    func refund(_ key: String, perMinute: Int) {
        buckets.withLock { buckets in
            guard var bucket = buckets[key] else { return }
            bucket.level = min(Double(perMinute), bucket.level + 1)
            buckets[key] = bucket
        }
    }

    /// Runs `body`, which `allow` let through for `key`, refunding it when it is refused for
    /// what it is before any work is done for it (400, 404, 405, 415): only requests that could
    /// change something count. A refused signature or token (401, 403) still counts, as guessing
    /// must be slow, and so do a 413 (its body was read) and a 422 (its `audio_url` was fetched).
    func refundingMalformed<T>(_ key: String, perMinute: Int, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch {
            if Self.isMalformed(error) { refund(key, perMinute: perMinute) }
            throw error
        }
    }

    static func isMalformed(_ error: any Error) -> Bool {
        let status: HTTPResponse.Status? = switch error {
        case let error as IntakeError: error.reason == .badRequest ? .badRequest : nil
        case let error as any HTTPResponseError: error.status
        default: nil
        }
        guard let status else { return false }
        return [.badRequest, .notFound, .methodNotAllowed, .unsupportedMediaType].contains(status)
    }
}

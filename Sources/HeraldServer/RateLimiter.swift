import HeraldIntake
import HTTPTypes
import Hummingbird
import HeraldCore

/// The hub API's rate limit: `TokenBuckets` keyed by token or client address.
typealias RateLimiter = TokenBuckets

extension TokenBuckets {
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

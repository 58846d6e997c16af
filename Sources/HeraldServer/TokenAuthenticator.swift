import Crypto
import Foundation
import HeraldConfig
import HTTPTypes
import HeraldApp
import Hummingbird

/// Checks `Authorization: Bearer TOKEN` against the configured tokens and their roles.
/// With no tokens configured every client is served: the server then listens on loopback only.
/// The local socket needs no token: its folder's permissions admit only the daemon's user.
struct TokenAuthenticator: RouterMiddleware {
    typealias Context = HeraldRequestContext
    /// The API settings in force now (a reload changes the tokens without a restart).
    let api: @Sendable () -> APISettings
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let settings = api()
        let tokens = settings.tokens
        let perMinute = settings.ratePerMinute
        // The local socket is its user's own: no token, no limit.
        guard !context.overLocalSocket else { return try await next(request, context) }
        // The page's own files hold no data: the page asks for a token before it reads anything.
        let needsNoToken = request.uri.path == "/v1/health" || (request.method == .get && AdminPage.paths.contains(request.uri.path))
        guard !tokens.isEmpty, !needsNoToken else {
            // No tokens: every local process is one client per address, so a flood of requests
            // that change something (announce, pause, skip, remind) is answered 429 before it
            // reaches the queue. Reads are left alone: a status page polling is not a flood.
            let changes = request.method != .get && request.method != .head
            guard changes else { return try await next(request, context) }
            let key = ClientConnections.key(for: context.clientAddress)
            guard limiter.allow(key, perMinute: perMinute) else {
                throw APIError.rateLimited(field: nil, "\(context.clientAddress) sent more than \(perMinute) requests a minute (api.rate_per_minute); slow down",
                                           perMinute: perMinute).counted(as: .rate)
            }
            return try await limiter.refundingMalformed(key, perMinute: perMinute) { try await next(request, context) }
        }
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
              let role = tokens[String(header.dropFirst("Bearer ".count))] else {
            // A wrong or missing token counts against its address: guessing tokens is slowed down.
            guard limiter.allow(ClientConnections.key(for: context.clientAddress), perMinute: perMinute) else {
                throw APIError.rateLimited(field: "Authorization", "\(context.clientAddress) sent more than \(perMinute) requests a minute without a valid token; slow down",
                                           perMinute: perMinute).counted(as: .rate)
            }
            let missing = request.headers[.authorization]?.hasPrefix("Bearer ") != true
            throw APIError(.unauthorized, field: "Authorization",
                                          missing ? "send 'Authorization: Bearer TOKEN' with a token from api.tokens" : "unknown token").counted(as: .token)
        }
        let token = String(header.dropFirst("Bearer ".count))
        guard limiter.allow(token, perMinute: perMinute) else {
            throw APIError.rateLimited(field: "Authorization", "this token sent more than \(perMinute) requests a minute (api.rate_per_minute); slow down",
                                       perMinute: perMinute).counted(as: .rate)
        }
        if role != .admin && Self.needsAdmin(request) {
            throw APIError(.forbidden, field: "Authorization", "this token has the announce role; \(request.uri.path) needs admin").counted(as: .token)
        }
        var identified = context
        identified.client = Self.client(token: token)
        return try await limiter.refundingMalformed(token, perMinute: perMinute) { try await next(request, identified) }
    }

    /// A stable name for a token that does not reveal it: request ids are scoped by it, so one
    /// till cannot claim (and so silence) another till's ids.
    static func client(token: String) -> String {
        "token:" + SHA256.hash(data: Data(token.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// Everything but creating and reading announcements (and push) is for admins.
    static func needsAdmin(_ request: Request) -> Bool {
        let path = request.uri.path
        if path == "/v1/push" || path == "/v1/announcements" { return false }
        // The FCM send endpoint: a phone backend's token announces, as on /v1/push.
        if path.hasPrefix("/v1/projects/") && path.hasSuffix("/messages:send") { return false }
        if request.method == .get && path.hasPrefix("/v1/announcements/") { return false }
        // Whoever may announce may also say "done" to a reminder (a button by the door).
        if request.method == .post && path.hasPrefix("/v1/reminders/") && path.hasSuffix("/ack") { return false }
        // A button is pressed by whatever may announce (a Shelly button, an automation), and the
        // day's total is read as the log is.
        if request.method == .post && path.hasPrefix("/v1/buttons/") { return false }
        if request.method == .get && path == "/v1/payments/total" { return false }
        return true
    }
}

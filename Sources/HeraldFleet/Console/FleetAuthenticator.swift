import HeraldConfig
import HeraldCore
import HTTPTypes
import Hummingbird

/// `Authorization: Bearer TOKEN` against `fleet.tokens`: a `read` token reads, an `operate` token
/// also acknowledges alarms and sends test announcements (which can be `critical`, to a whole
/// group). With no tokens every request is served: the console may then listen on loopback only
/// (`fleet.listen`, checked with the config), as the hub's API.
struct FleetAuthenticator: RouterMiddleware {
    typealias Context = FleetRequestContext
    let tokens: [String: FleetSettings.Role]
    /// Requests without a valid token, per address: guessing a token is slowed to this many a
    /// minute (the page of a person who mistyped one sends a few).
    let guesses: TokenBuckets
    static let guessesPerMinute = 30

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !tokens.isEmpty else { return try await next(request, context) }
        let reads = request.method == .get || request.method == .head
        // The page's own files and the health check hold no fleet data: the page asks for a token
        // before it reads anything, and a load balancer may probe without one.
        if reads && (FleetPage.paths.contains(request.uri.path) || request.uri.path == "/v1/health") {
            return try await next(request, context)
        }
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
              let role = tokens[String(header.dropFirst("Bearer ".count))] else {
            guard guesses.allow(context.clientAddress, perMinute: Self.guessesPerMinute) else {
                throw FleetAPIError(.tooManyRequests, field: "Authorization",
                                    "\(context.clientAddress) sent more than \(Self.guessesPerMinute) requests a minute without a valid token; wait a minute")
            }
            let missing = request.headers[.authorization]?.hasPrefix("Bearer ") != true
            throw FleetAPIError(.unauthorized, field: "Authorization",
                                missing ? "send 'Authorization: Bearer TOKEN' with a token from fleet.tokens" : "unknown token")
        }
        if role == .read && !reads {
            throw FleetAPIError(.forbidden, field: "Authorization", "this token has the read role; \(request.method) \(request.uri.path) needs operate")
        }
        return try await next(request, context)
    }
}

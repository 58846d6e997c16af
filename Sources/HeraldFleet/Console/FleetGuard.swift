import HTTPTypes
import Hummingbird
import HeraldWeb

/// The hub API's browser rules, for the console (DESIGN.md "Security and bad input"): a body
/// that is not JSON is 415, a `Host` that is a name other than `localhost` (or the console's own
/// listen name) 421, another site's `Origin` or `Sec-Fetch-Site` 403. A page elsewhere cannot
/// acknowledge alarms or make hubs speak.
struct FleetGuard: RouterMiddleware {
    typealias Context = FleetRequestContext
    /// Names besides `localhost` and IP literals the console answers to.
    let hostnames: Set<String>
    /// `http` or `https`: the console's own page's origin.
    var scheme = "http"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let problem = BrowserRules.bodyTypeProblem(request.headers) {
            throw FleetAPIError(.unsupportedMediaType, field: "Content-Type", problem)
        }
        if let authority = request.head.authority, !BrowserRules.isAllowedHost(authority, hostnames: hostnames) {
            throw FleetAPIError(.misdirectedRequest, field: "Host", "'\(authority)' is not a name this console answers to; use its address or localhost")
        }
        if let origin = request.headers[.origin], origin.lowercased() != request.head.authority.map({ scheme + "://" + $0.lowercased() }) {
            throw FleetAPIError(.forbidden, field: "Origin", "requests from the web page at '\(origin)' are refused: only the console's own page may use its API")
        }
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!]?.lowercased(), site != "same-origin", site != "none",
           !(request.method == .get && FleetPage.paths.contains(request.uri.path)) {
            throw FleetAPIError(.forbidden, field: "Sec-Fetch-Site", "a request a browser sent from another site ('\(site)') is refused")
        }
        return try await next(request, context)
    }
}

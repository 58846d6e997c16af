import HeraldConfig
import HeraldWeb
import HTTPTypes
import Hummingbird

/// Refuses what a web page can make a browser send to a daemon on loopback without asking
/// first (DESIGN.md "Security and bad input"): a body that is not `application/json` (a
/// `text/plain` form, a `no-cors` fetch, a beacon) is 415; a `Host` that is a name other than
/// `localhost` and `api.hostnames` is 421 (a DNS-rebinding page: an IP literal cannot be rebound);
/// an `Origin` other than the daemon's own, or `Sec-Fetch-Site: cross-site`/`same-site`, is 403.
/// (`JSONErrorMiddleware` adds `nosniff` to every answer.) The UNIX socket is out of a browser's reach and is checked
/// for the body's type only.
struct BrowserGuard: RouterMiddleware {
    typealias Context = HeraldRequestContext
    /// The API settings in force now.
    let api: @Sendable () -> APISettings

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try check(request, context: context)
        return try await next(request, context)
    }

    private func check(_ request: Request, context: Context) throws {
        if let problem = BrowserRules.bodyTypeProblem(request.headers) {
            throw APIError(.unsupportedMediaType, field: "Content-Type", problem).counted(as: .contentType)
        }
        guard !context.overLocalSocket else { return }
        if let authority = request.head.authority, !BrowserRules.isAllowedHost(authority, hostnames: api().hostnames) {
            throw APIError(.misdirectedRequest, field: "Host",
                           "'\(authority)' is not a name this daemon answers to; use 127.0.0.1, localhost, or add the name to api.hostnames").counted(as: .host)
        }
        if let origin = request.headers[.origin] {
            let own = request.head.authority.map { "http://" + $0.lowercased() }
            guard origin.lowercased() == own else {
                throw APIError(.forbidden, field: "Origin",
                               "requests from the web page at '\(origin)' are refused: only the daemon's own admin page may use the API from a browser").counted(as: .origin)
            }
        }
        if let site = request.headers[Self.secFetchSite]?.lowercased(), site != "same-origin", site != "none",
           !Self.isNavigationToThePage(request) {
            throw APIError(.forbidden, field: "Sec-Fetch-Site",
                           "a request a browser sent from another site ('\(site)') is refused; open the admin page at its own address instead").counted(as: .origin)
        }
    }

    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    static let secFetchMode = HTTPField.Name("Sec-Fetch-Mode")!
    static let secFetchDest = HTTPField.Name("Sec-Fetch-Dest")!

    /// A person following a link to the admin page: the page holds no data, and its
    /// `frame-ancestors 'none'` keeps it out of another page's frame.
    static func isNavigationToThePage(_ request: Request) -> Bool {
        request.method == .get && AdminPage.paths.contains(request.uri.path)
            && request.headers[secFetchMode] == "navigate" && request.headers[secFetchDest] == "document"
    }
}

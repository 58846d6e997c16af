import HeraldWeb
import HTTPTypes
import Hummingbird
import NIOCore

/// The console's page: HTML, CSS (the hub's admin page's, plus a few rules) and JavaScript
/// compiled into the binary; it reads and acts only through the JSON API, and loads nothing
/// from elsewhere (the chart is drawn by the script, as SVG).
enum FleetPage {
    static let paths: [String] = ["/", "/fleet.js", "/fleet.css"]

    static func response(for path: String) -> Response {
        var headers = HTTPFields()
        let body: String
        switch path {
        case "/fleet.js":
            headers[.contentType] = "text/javascript; charset=utf-8"
            body = script
        case "/fleet.css":
            headers[.contentType] = "text/css; charset=utf-8"
            body = WebPage.style + style
        default:
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.contentSecurityPolicy] = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"
            body = html
        }
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static let style = #"""
main { grid-template-columns: 1fr; }
@media (min-width: 1100px) { main { grid-template-columns: 1fr 1fr; } .wide { grid-column: 1 / -1; } }
.state-online { color: #2e7d32; font-weight: 600; }
.state-stale { color: #a15c00; font-weight: 600; }
.state-offline { color: #b00020; font-weight: 600; }
tbody tr.hub { cursor: pointer; }
tbody tr.hub:hover { background: #eef2f8; }
#chart svg { width: 100%; height: 180px; display: block; }
#legend span { display: inline-block; margin-right: .8rem; font-size: .85rem; }
.count { font-variant-numeric: tabular-nums; }
"""#
}

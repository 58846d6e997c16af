import HeraldWeb
import HTTPTypes
import Hummingbird
import NIOCore

/// The admin page at `/`: plain HTML, CSS and JavaScript compiled into the binary (no build step,
/// no external assets). It reads and acts only through the JSON API, with the same tokens.
package enum AdminPage {
    enum Asset { case html, script, style }

    /// The paths that serve the page itself; they hold no data, so they need no token.
    static let paths: Set<String> = ["/", "/admin.js", "/admin.css"]

    static func response(_ asset: Asset) -> Response {
        var headers = HTTPFields()
        let body: String
        switch asset {
        case .html:
            headers[.contentType] = "text/html; charset=utf-8"
            // Only its own script and style: nothing from elsewhere, nothing inline.
            // Audio from the daemon, or (with a token) from memory: `blob:`.
            headers[.contentSecurityPolicy] = "default-src 'self'; img-src 'self' data:; media-src 'self' blob:; frame-ancestors 'none'"
            body = html
        case .script:
            headers[.contentType] = "text/javascript; charset=utf-8"
            body = script + playerScript
        case .style:
            headers[.contentType] = "text/css; charset=utf-8"
            body = WebPage.style + playerStyle
        }
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}

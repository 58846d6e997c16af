import Foundation
import HeraldConfig
import HTTPTypes

/// What a daemon on loopback answers to, for the hub's API and the fleet console alike.
package enum BrowserRules {
    /// A body must say it is JSON: a browser cannot send `application/json` to another origin
    /// without asking first (a CORS preflight, which this daemon never grants).
    package static func bodyTypeProblem(_ headers: HTTPFields) -> String? {
        let contentType = headers[.contentType]
        let hasBody = headers[.transferEncoding] != nil || (headers[.contentLength].flatMap { Int($0) } ?? 0) > 0
        guard hasBody || contentType != nil else { return nil }
        let mediaType = contentType?.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType != "application/json" else { return nil }
        let got = contentType.map { "Content-Type is '\($0)'" } ?? "the body has no Content-Type"
        return "\(got); send JSON with 'Content-Type: application/json' (curl --json '{...}')"
    }

    /// `localhost`, an IP literal, or a name in `api.hostnames`, with or without a port.
    package static func isAllowedHost(_ authority: String, hostnames: Set<String>) -> Bool {
        if authority.hasPrefix("[") { return authority.contains("]") }
        let host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let name = APISettings.normalizedHostname(host)
        return name == "localhost" || isIPv4Literal(name) || hostnames.contains(name)
    }

    static func isIPv4Literal(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber) && Int(part).map { $0 <= 255 } == true
        }
    }
}

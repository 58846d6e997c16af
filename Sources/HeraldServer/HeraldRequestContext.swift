import Foundation
import Hummingbird
import NIOCore

/// A request's context: Hummingbird's, plus who sent it.
public struct HeraldRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who sent the request, as a scope for its request ids: `loopback` when no tokens are
    /// configured, `socket` for the CLI on the local socket, else a digest of the token (never
    /// the token itself). Set by `TokenAuthenticator`.
    public var client = "loopback"
    /// The request came on the daemon's UNIX socket, which only its own user (or root) can open:
    /// it needs no token.
    public let overLocalSocket: Bool
    /// The peer's IP address (`127.0.0.1`), or `socket`: the key of the per-client rate limit
    /// when no tokens are configured.
    public let clientAddress: String

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        if case .unixDomainSocket = source.channel.localAddress {
            overLocalSocket = true
            client = "socket"
            clientAddress = "socket"
        } else {
            overLocalSocket = false
            clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        }
    }
}

extension HeraldRequestContext {
    /// The path's `{id}` as the client meant it: percent-decoded, so a reminder named
    /// `config:morning pills` in the config can be removed and acknowledged.
    func pathID() throws -> String {
        let raw = try parameters.require("id")
        return raw.removingPercentEncoding ?? raw
    }
}

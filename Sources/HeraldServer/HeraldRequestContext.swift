import Hummingbird

/// A request's context: Hummingbird's, plus who sent it.
public struct HeraldRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who sent the request, as a scope for its request ids: `loopback` when no tokens are
    /// configured, else a digest of the token (never the token itself). Set by `TokenAuthenticator`.
    public var client = "loopback"

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}

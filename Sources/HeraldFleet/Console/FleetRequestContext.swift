import Hummingbird

/// A console request's context: who sent it, the key of the limit on wrong tokens.
struct FleetRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's IP address (`127.0.0.1`).
    let clientAddress: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}

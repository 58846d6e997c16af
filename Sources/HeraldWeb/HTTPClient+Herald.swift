import AsyncHTTPClient
import HeraldCore

extension HTTPClient.Configuration {
    /// The daemon's one client: redirects refused (an allowed `audio_url` host must not hand the
    /// fetch to another host; a webhook answers for itself), connecting within `connectTimeout`
    /// (`audio_url.connect_timeout_ms` as read at start). Each use bounds its whole exchange with
    /// a deadline of its own.
    public static func herald(connectTimeout: Duration) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .nanoseconds(Int64(connectTimeout.inSeconds * 1e9)))
        configuration.redirectConfiguration = .disallow
        return configuration
    }
}

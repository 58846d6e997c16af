/// Tells when another client is using this console's MQTT client id. The broker lets the newest
/// connection with an id have it and puts the older one off; two consoles with one id then take
/// it from each other at every reconnect, forever. An MQTT 5 broker may say so (DISCONNECT
/// "Session taken over"); Mosquitto 2.0 was seen here to just close the socket ("The connection
/// was lost"). So: the broker's word, or `limit` connections in a row each lost within `short`.
/// Of two consoles put off in turn, the first to reach the limit gives way; the other then stays.
struct TakeoverDetector: Sendable {
    var limit = 3
    var short: Duration = .seconds(5)
    private var connectedAt: ContinuousClock.Instant?
    private var streak = 0

    mutating func connected(at now: ContinuousClock.Instant) { connectedAt = now }

    /// The connection went down for `reason`: true when this console should give way.
    mutating func down(reason: String, at now: ContinuousClock.Instant) -> Bool {
        if reason.contains("Session taken over") { return true }
        guard let since = connectedAt else { return false }
        connectedAt = nil
        streak = now - since < short ? streak + 1 : 0
        return streak >= limit
    }
}

import HeraldCore
import Prometheus

/// The console's `/metrics`: hubs by state and open alarms by kind (read from the database at each
/// scrape, so every console reports the whole fleet), and what this console took in.
/// A registry of its own, not swift-metrics' process-wide one: the console is its own process.
public final class FleetMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()

    static let hubsHelp = "Hubs by state (online, stale, offline), as the database holds them."
    static let alarmsHelp = "Open alarms by kind."
    static let ingestedHelp = "Hub events this console wrote to the database."
    static let messagesHelp = "Hub messages this console received, by topic kind (status, health, events)."
    static let refusedHelp = "Hub messages this console could not use (not JSON, not the documented shape, hub not its topic's)."
    static let tooLargeHelp = "Hub messages refused for their size or room count (also in herald_fleet_messages_refused_total): never stored."
    static let noticesHelp = "Alarm notices this console sent to the webhook, by result (sent, failed)."

    public init() {}

    func received(_ kind: String) { registry.makeCounter(name: "herald_fleet_messages_total", labels: [("kind", kind)], help: Self.messagesHelp).increment() }
    func refused(tooLarge: Bool = false) {
        registry.makeCounter(name: "herald_fleet_messages_refused_total", help: Self.refusedHelp).increment()
        if tooLarge { registry.makeCounter(name: "herald_fleet_messages_too_large_total", help: Self.tooLargeHelp).increment() }
    }
    func ingested(_ count: Int) { registry.makeCounter(name: "herald_fleet_events_ingested_total", help: Self.ingestedHelp).increment(by: Int64(count)) }
    func notice(sent: Bool) {
        registry.makeCounter(name: "herald_fleet_webhook_notices_total", labels: [("result", sent ? "sent" : "failed")], help: Self.noticesHelp).increment()
    }

    /// The text format, after setting the fleet's gauges to `states` and `alarms`.
    func render(states: [HubState: Int], alarms: [String: Int]) -> String {
        for state in HubState.allCases {
            registry.makeGauge(name: "herald_fleet_hubs", labels: [("state", state.rawValue)], help: Self.hubsHelp).set(Double(states[state, default: 0]))
        }
        for kind in AlarmKind.allCases {
            registry.makeGauge(name: "herald_fleet_alarms_open", labels: [("kind", kind.rawValue)], help: Self.alarmsHelp).set(Double(alarms[kind.rawValue, default: 0]))
        }
        // Touched once so a console that has taken nothing in yet still shows them at 0.
        _ = registry.makeCounter(name: "herald_fleet_events_ingested_total", help: Self.ingestedHelp)
        _ = registry.makeCounter(name: "herald_fleet_messages_refused_total", help: Self.refusedHelp)
        _ = registry.makeCounter(name: "herald_fleet_messages_too_large_total", help: Self.tooLargeHelp)
        return registry.emitToString()
    }
}

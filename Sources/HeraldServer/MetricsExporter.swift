import Foundation
import HeraldApp
import HeraldCore
import Metrics
import Prometheus

/// The Prometheus backend of `HeraldMetrics`, rendered on `GET /metrics`.
///
/// swift-metrics takes one backend per process, so there is one exporter per process
/// (`shared`): bootstrapped on first use, which `herald serve` makes before anything is counted.
public final class MetricsExporter: Sendable {
    let registry: PrometheusCollectorRegistry

    /// The process's exporter; the first use bootstraps swift-metrics with it.
    public static let shared: MetricsExporter = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = ["herald_onset_latency_seconds": HeraldMetrics.onsetBuckets]
        MetricsSystem.bootstrap(factory)
        return MetricsExporter(registry: registry)
    }()

    private init(registry: PrometheusCollectorRegistry) { self.registry = registry }

    /// Prometheus' text format (0.0.4), with a `# HELP` line before each family's `# TYPE`
    /// (swift-metrics has no place for help text, so it is added here from `HeraldMetrics.help`).
    public func render() -> String {
        let help = Dictionary(HeraldMetrics.help.map { ($0.name, $0.text) }, uniquingKeysWith: { first, _ in first })
        var lines: [Substring] = []
        for line in registry.emitToString().split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE "), let name = line.dropFirst("# TYPE ".count).split(separator: " ").first,
               let text = help[String(name)] {
                lines.append("# HELP \(name) \(Self.escapeHelp(text))")
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// HELP text escapes only backslash and newline in the text format.
    static func escapeHelp(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }
}

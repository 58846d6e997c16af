import Foundation

/// A `/metrics` page read by the Prometheus project's own parser (`prometheus_client.parser`,
/// Debian's python3-prometheus-client, installed by scripts/install-deps.sh): a page it refuses
/// fails the test, so what a real scraper would choke on cannot pass.
struct PrometheusText {
    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    var samples: [Sample]
    /// Family name to type (counter, gauge, histogram), as the parser read it.
    var types: [String: String]

    init(parsing text: String, in folder: String) throws {
        let page = folder + "/metrics-\(UUID().uuidString).txt"
        try text.write(toFile: page, atomically: true, encoding: .utf8)
        // Debian's interpreter, not one earlier on PATH (pyenv) that lacks the Debian module.
        let script = """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            out = {"samples": [], "types": {}}
            for family in text_string_to_metric_families(open(sys.argv[1]).read()):
                out["types"][family.name] = family.type
                for s in family.samples:
                    out["samples"].append({"name": s.name, "labels": s.labels, "value": s.value})
            print(json.dumps(out))
            """
        let result = try SoundServer.run("/usr/bin/python3", ["-c", script, page])
        guard result.status == 0 else {
            throw SoundServer.CommandFailed(description: "the Prometheus parser refused the page: \(result.stderr)\n\(text)")
        }
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        types = parsed["types"] as? [String: String] ?? [:]
        samples = (parsed["samples"] as? [[String: Any]] ?? []).map {
            Sample(name: $0["name"] as? String ?? "", labels: $0["labels"] as? [String: String] ?? [:],
                   value: ($0["value"] as? NSNumber)?.doubleValue ?? .nan)
        }
    }

    /// The one sample `name` with exactly `labels`, or nil.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// Every sample named `name`.
    func all(_ name: String) -> [Sample] { samples.filter { $0.name == name } }
}

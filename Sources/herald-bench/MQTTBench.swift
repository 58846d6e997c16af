import Foundation
import HeraldCore

/// Publish to first audible sample through the broker against HTTP POST, in the same run on the
/// same daemon, then a burst of 1,000 publishes (none lost, none twice, all logged). Runs when
/// scripts/bench.sh has started its private broker (HERALD_BENCH_MQTT_PORT).
struct MQTTBench {
    let daemon: DaemonBench
    let port: Int
    static let hub = "bench-hub"
    var topic: String { "herald/\(Self.hub)/announce" }

    /// The daemon's `mqtt:` section for this broker.
    static func config(port: Int) -> String {
        "mqtt:\n  broker: mqtt://127.0.0.1:\(port)\n  hub: \(hub)\n"
    }

    /// A resident backend: `mosquitto_pub -l` publishes each line written to it (QoS 1), so no
    /// process start is in the figures.
    final class Publisher {
        let process = Process()
        let input = Pipe()

        init(port: Int, topic: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["mosquitto_pub", "-p", "\(port)", "-q", "1", "-t", topic, "-l"]
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            try process.run()
        }

        func send(_ json: String) throws { try input.fileHandleForWriting.write(contentsOf: Data((json + "\n").utf8)) }

        deinit {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    func run() async throws {
        let bench = daemon.bench
        let publisher = try Publisher(port: port, topic: topic)
        print("MQTT (broker on loopback, hub \(Self.hub)) against HTTP, the same daemon:")
        let http = try await bench.onset("HTTP POST, pack amount (25.30 USD)") { _ in
            daemon.post(#"{"payment": {"amount": "25.30"}}"#)
        }
        let mqtt = try await bench.onset("MQTT publish QoS 1, pack amount (25.30 USD)") { run in
            try publisher.send(#"{"payment": {"amount": "25.30"}, "request_id": "bench-onset-\#(run)"}"#)
            return Task {}
        }
        print(String(format: "MQTT / HTTP: %.2f", mqtt / http))
        try await burst(publisher)
    }

    /// 1,000 payments published back to back; counted in the log once the queue has drained.
    func burst(_ publisher: Publisher) async throws {
        let total = 1000
        let started = ContinuousClock.now
        for index in 0..<total {
            try publisher.send(#"{"payment": {"amount": "1.\#(index % 100)"}, "priority": "high", "request_id": "mqtt-burst-\#(index)"}"#)
        }
        let publishSeconds = (ContinuousClock.now - started).inSeconds
        var rows: [AnnouncementRecord] = []
        for _ in 0..<600 {
            rows = try await daemon.bench.context.store.announcements(since: nil, outcome: nil, limit: 100_000)
                .filter { $0.requestID?.hasPrefix("mqtt-burst-") == true }
            if rows.count == total && rows.allSatisfy({ $0.outcome != nil }) { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        let taken = (ContinuousClock.now - started).inSeconds
        let outcomes = Dictionary(grouping: rows) { $0.outcome?.rawValue ?? "none" }.mapValues(\.count)
        print("MQTT burst: \(total) publishes written in \(String(format: "%.2f", publishSeconds)) s; logged \(rows.count)"
              + ", distinct request ids \(Set(rows.compactMap(\.requestID)).count), all sources mqtt: \(rows.allSatisfy { $0.source == .mqtt })"
              + "; outcomes \(outcomes.sorted { $0.key < $1.key }); done in \(String(format: "%.1f", taken)) s")
    }
}

import Foundation
import Testing

/// `GET /metrics` over real HTTP, read by Prometheus' own text-format parser, against the log.
extension OnTheTestSink {
@Suite final class MetricsTests {
    init() throws {
        try SoundServer.require()
    }

    @Test func scrapedCountsMatchTheHistory() throws {
        // Muted and quiet, with a radio playing: the critical one unmutes, raises and ducks.
        try SoundServer.setSink(volumes: ["30%"], muted: true)
        let port = DaemonTests.port()
        let harness = try HeraldHarness(extraConfig: "api:\n  listen: 127.0.0.1:\(port)\n")
        try harness.appendConfig("cache:\n  path: \(harness.folder)/cache")
        let (music, _) = try harness.startMusic(volume: 40_000)
        defer { kill(music.processIdentifier, SIGKILL) }  // SIGTERM is blocked in the runner's children
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }

        var (status, row) = try daemon.post("/v1/announcements?wait=true", #"{"clip": "ding", "priority": "critical"}"#)
        #expect(status == 200 && row["outcome"] as? String == "played", "\(row)")
        // Low respects the mute, which the close put back.
        (status, row) = try daemon.post("/v1/announcements?wait=true", #"{"clip": "ding", "priority": "low"}"#)
        #expect(row["outcome"] as? String == "suppressed_muted", "\(row)")
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        // The same sentence twice: synthesized (a miss), then from the cache (a hit).
        for _ in 0..<2 {
            (status, row) = try daemon.post("/v1/announcements?wait=true", #"{"text": "Metrics check", "priority": "normal"}"#)
            #expect(row["outcome"] as? String == "played", "\(row)")
        }
        // A request id sent again plays nothing and adds no row.
        for _ in 0..<2 {
            (status, row) = try daemon.post("/v1/push?wait=true",
                                            #"{"action": "speak_tts", "text": "Order ready", "request_id": "m-1"}"#)
            #expect(row["outcome"] as? String == "played", "\(row)")
        }

        let (code, body, contentType) = Daemon.rawRequest("GET", daemon.base + "/metrics")
        #expect(code == 200)
        #expect(contentType?.hasPrefix("text/plain; version=0.0.4") == true, "\(contentType ?? "none")")
        let text = String(decoding: try #require(body), as: UTF8.self)
        let page = try PrometheusText(parsing: text, in: harness.folder)

        // Every (outcome, priority, source) of the log, and nothing else.
        let history = try harness.history()
        #expect(history.count == 5, "\(history)")
        var expected: [[String: String]: Double] = [:]
        for row in history {
            let key = ["outcome": row["outcome"] as? String ?? "?", "priority": row["priority"] as? String ?? "?",
                       "source": row["source"] as? String ?? "?"]
            expected[key, default: 0] += 1
        }
        var counted: [[String: String]: Double] = [:]
        for sample in page.all("herald_announcements_total") { counted[sample.labels] = sample.value }
        #expect(counted == expected)
        #expect(page.types["herald_announcements"] == "counter")
        #expect(page.value("herald_duplicates_total", ["source": "push"]) == 1)

        // One onset per row that has one, in a histogram whose buckets hold them all.
        let onsets = history.compactMap { $0["onset_latency_milliseconds"] as? Int }
        #expect(onsets.count == 4)
        #expect(page.types["herald_onset_latency_seconds"] == "histogram")
        #expect(page.value("herald_onset_latency_seconds_count") == Double(onsets.count))
        let sum = try #require(page.value("herald_onset_latency_seconds_sum"))
        #expect(abs(sum - Double(onsets.reduce(0, +)) / 1000) < 0.01, "sum \(sum) s against \(onsets) ms")
        #expect(page.value("herald_onset_latency_seconds_bucket", ["le": "+Inf"]) == Double(onsets.count))

        #expect(page.value("herald_cache_lookups_total", ["result": "miss"]) == 2, "the sentence and the push text, first said")
        #expect(page.value("herald_cache_lookups_total", ["result": "hit"]) == 1)
        #expect(page.value("herald_safeguard_actions_total", ["action": "unmute"]) == 1)
        #expect(page.value("herald_safeguard_actions_total", ["action": "raise"]) == 1)
        #expect((page.value("herald_safeguard_actions_total", ["action": "duck"]) ?? 0) >= 1, "the radio")
        // One close per session: critical, then the two sentences and the push back to back or not.
        #expect((page.value("herald_safeguard_actions_total", ["action": "restore"]) ?? 0) >= 2)
        #expect(page.value("herald_safeguard_actions_total", ["action": "journal_replay"]) == 0)
        #expect(page.value("herald_sound_server_reconnects_total") == 0)
        for priority in ["critical", "high", "normal", "low"] {
            #expect(page.value("herald_queue_depth", ["priority": priority]) == 0)
        }
        let version = try harness.herald(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(page.value("herald_build_info", ["version": version]) == 1)
        #expect(text.contains("# HELP herald_announcements_total "), "help lines for people reading the page")

        // `herald stats` reads the same log: the same counts, the same cache use.
        let statsRun = try harness.herald(["stats", "--json", "--since", "1h"])
        #expect(statsRun.status == 0, "\(statsRun.stderr)")
        let stats = try JSONSerialization.jsonObject(with: Data(statsRun.stdout.utf8)) as? [String: Any] ?? [:]
        var outcomes: [String: Int] = [:]
        for (key, count) in expected { outcomes[key["outcome"] ?? "?", default: 0] += Int(count) }
        #expect(stats["by_outcome"] as? [String: Int] == outcomes, "\(statsRun.stdout)")
        #expect(stats["total"] as? Int == 5)
        #expect(stats["cache_hits"] as? Int == 1 && stats["cache_misses"] as? Int == 2)
        let onset = stats["onset"] as? [String: Int] ?? [:]
        #expect(onset["count"] == 4 && onset["max"] == onsets.max(), "\(onset)")
        let human = try harness.herald(["stats"])
        #expect(human.stdout.contains("5 announcement(s) from "), "\(human.stdout)")
        #expect(human.stdout.contains("cache:    33% of sentences from the cache (1 hit(s), 2 synthesized)"), "\(human.stdout)")
        // Nothing is old enough to prune; the command says so and the log is whole.
        let prune = try harness.herald(["history", "--prune"])
        #expect(prune.stdout.contains("pruned 0 announcement(s) finished before "), "\(prune.stdout)\(prune.stderr)")
        #expect(try harness.history().count == 5)
        let badWindow = try harness.herald(["stats", "--since", "yesterday"])
        #expect(badWindow.status != 0 && badWindow.stderr.contains("--since: 'yesterday' is neither a duration"), "\(badWindow.stderr)")
    }

    @Test func aTokenGuardsTheMetricsLikeTheRestOfTheAdminAPI() throws {
        let port = DaemonTests.port()
        let harness = try HeraldHarness(extraConfig: """
            api:
              listen: 127.0.0.1:\(port)
              tokens:
                scrape-secret-0001: admin
                till-token-000001: announce
            """)
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        #expect(Daemon.rawRequest("GET", daemon.base + "/metrics").0 == 401)
        #expect(Daemon.rawRequest("GET", daemon.base + "/metrics", headers: ["Authorization": "Bearer till-token-000001"]).0 == 403)
        let (status, body, _) = Daemon.rawRequest("GET", daemon.base + "/metrics", headers: ["Authorization": "Bearer scrape-secret-0001"])
        #expect(status == 200)
        #expect(String(decoding: body ?? Data(), as: UTF8.self).contains("herald_build_info"))
    }
}
}

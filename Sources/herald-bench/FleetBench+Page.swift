import Foundation
import HeraldFleet
import PostgresNIO

extension FleetBench {
    /// `hubs` more hubs named `prefix...` beating at a real fleet's rate (every 60 s, spread over
    /// the minute) while each request of the page and the API is timed, `runs` times: the page
    /// as it opens and polls now, against the whole list it fetched before (measured alike in
    /// this run), and `/v1/health` (one `SELECT 1`).
    func page(_ hubs: Int, prefix: String, console: BenchConsole, client: PostgresClient) async throws {
        let simulator = try await beating(hubs, prefix: prefix, client: client)
        defer { simulator.stop() }
        try await whileBeating(simulator) {
            try await timePage(console: console, named: prefix + "0042", runs: runs, wholeListRuns: runs)
        }
    }

    /// `body` while `simulator` beats at its plan's rate (its hubs have beaten already); the
    /// beating stopped before it returns or throws.
    func whileBeating(_ simulator: HubSimulator, _ body: () async throws -> Void) async throws {
        let beating = Task { try await simulator.run(beatingAllFirst: false) }
        do {
            try await body()
        } catch {
            beating.cancel()
            _ = await beating.result
            throw error
        }
        beating.cancel()
        _ = await beating.result
    }

    /// Every request of the page, with the hubs the console holds now.
    func timePage(console: BenchConsole, named hub: String, runs: Int, wholeListRuns: Int) async throws {
        let first = try await console.object("/v1/hubs?limit=100")
        let counts = first["counts"] as? [String: Int] ?? [:]
        let cursor = first["cursor"] as? String ?? "0"
        print("  with \(counts["total"] ?? 0) hubs (\(counts["online"] ?? 0) online), beating every 60 s; one request at a time, keep-alive:")
        let health = try await console.time("GET /v1/health (one SELECT 1)", ["/v1/health"], runs: runs)
        _ = try await console.time("GET / (the page)", ["/"], runs: runs)
        let whole = try await console.time("GET /v1/hubs (every hub, as before)", ["/v1/hubs"], runs: wholeListRuns)
        let paged = try await console.time("GET /v1/hubs?limit=100 (a page + counts)", ["/v1/hubs?limit=100"], runs: runs)
        _ = try await console.time("GET /v1/hubs?state=offline&limit=100", ["/v1/hubs?state=offline&limit=100"], runs: runs)
        _ = try await console.time("GET /v1/hubs?q=0042&limit=100 (by name)", ["/v1/hubs?q=0042&limit=100"], runs: runs)
        _ = try await console.time("GET /v1/hubs?since= (the 5 s poll's changes)", ["/v1/hubs?since=\(cursor)"], runs: runs)
        _ = try await console.time("GET /v1/groups", ["/v1/groups"], runs: runs)
        _ = try await console.time("GET /v1/hubs/\(hub) (one hub)", ["/v1/hubs/\(hub)"], runs: runs)
        _ = try await console.time("GET /v1/chart (fleet, 24 h)", ["/v1/chart"], runs: runs)
        _ = try await console.time("GET /metrics", ["/metrics"], runs: runs)
        // What the page did on opening and on every refresh before, and what it does now
        // (FleetPage+Script's refresh(): its requests at once, then the health).
        let before = try await console.time("the page opened as before: /, every hub, alarms + chart, health",
                                            ["/", "/v1/hubs", "/v1/alarms?state=open|/v1/chart", "/v1/health"], runs: wholeListRuns)
        let open = try await console.time("the page opened: /, a page + groups + alarms + chart, health",
                                          ["/", "/v1/hubs?limit=100|/v1/groups|/v1/alarms?state=open|/v1/chart", "/v1/health"], runs: runs)
        let poll = try await console.time("the page's 5 s poll: changes + alarms + chart, health",
                                          ["/v1/hubs?since=\(cursor)|/v1/alarms?state=open|/v1/chart", "/v1/health"], runs: runs)
        let wholeBytes = try await console.bytes("/v1/hubs"), pageBytes = try await console.bytes("/v1/hubs?limit=100")
        print(String(format: "  the page opened: %.1f ms, as before: %.1f ms (%.1f times faster); its 5 s poll: %.1f ms",
                     open, before, before / open, poll))
        print(String(format: "  a page of 100 / every hub: %.1f / %.1f ms (%.0f KB / %.0f KB); a page / /v1/health: %.1f",
                     paged, whole, Double(pageBytes) / 1024, Double(wholeBytes) / 1024, paged / health))
    }

    /// `hubs` simulated hubs named `prefix...`, each with a status and a heartbeat, all written.
    func beating(_ hubs: Int, prefix: String, client: PostgresClient, eventsPerSecond: Double = 0) async throws -> HubSimulator {
        var plan = HubSimulator.Plan(hubs: hubs)
        plan.prefix = prefix
        plan.eventsPerSecond = eventsPerSecond
        let simulator = try HubSimulator(plan: plan, broker: brokerSettings("herald-bench-" + prefix))
        try await simulator.connect()
        do {
            let started = ContinuousClock.now
            try simulator.beat()
            try await waitForHeartbeats(hubs, prefix: prefix, client: client, timeout: .seconds(300))
            if hubs > 10_000 {
                print(String(format: "  %d hubs' statuses and heartbeats (%d messages) written in %.1f s", hubs, hubs * 2,
                             (ContinuousClock.now - started).inSeconds))
            }
        } catch {
            simulator.stop()
            throw error
        }
        return simulator
    }

    /// Waits until `hubs` hubs named `prefix...` have a heartbeat received at `since` or later.
    func waitForHeartbeats(_ hubs: Int, prefix: String, since: Date = .distantPast, client: PostgresClient,
                           timeout: Duration, every pause: Duration = .milliseconds(250)) async throws {
        let deadline = ContinuousClock.now + timeout
        while try await heartbeats(prefix: prefix, since: since, client: client) < hubs {
            guard ContinuousClock.now < deadline else { throw BenchError("fewer than \(hubs) heartbeats of \(prefix)... written in \(timeout)") }
            try await Task.sleep(for: pause)
        }
    }

    /// How many hubs named `prefix...` have a heartbeat received at `since` or later.
    func heartbeats(prefix: String, since: Date, client: PostgresClient) async throws -> Int {
        for try await value in try await client.query("""
            SELECT count(*)::bigint FROM hubs WHERE hub LIKE \(prefix + "%") AND health_at >= \(since)
            """, logger: logger).decode(Int64.self) {
            return Int(value)
        }
        return 0
    }
}

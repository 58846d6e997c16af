import Foundation
import HeraldApp
import HeraldCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The daemon scenario: HTTP POST to audible onset against a scripted pactl + espeak-ng + paplay
/// baseline, then a burst of POSTs from concurrent clients.
struct DaemonBench {
    let bench: Bench
    var port = Int.random(in: 41_000...50_000)
    /// YAML added to the bench's config (another speech engine).
    var extraConfig = ""
    /// The bench's config with this daemon's port: the CLI finds the daemon (and its socket) by it.
    var configPath: String { bench.folder + "/daemon-\(port).yaml" }

    /// Starts `herald serve` with the bench config; returns it once /v1/health answers.
    func startDaemon() async throws -> Process {
        var config = try String(contentsOfFile: bench.config(port: port, name: "daemon-\(port)"), encoding: .utf8)
        if let broker = Self.brokerPort { config += MQTTBench.config(port: broker) }
        config += extraConfig
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bench.heraldBinary)
        process.arguments = ["serve"]
        process.environment = ProcessInfo.processInfo.environment.merging(["HERALD_CONFIG": configPath]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<200 {
            if (try? await request("GET", "/v1/health").0) == 200 { return process }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchError("herald serve did not answer on port \(port)")
    }

    func request(_ method: String, _ path: String, _ body: String? = nil) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        request.timeoutInterval = 600
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// POSTs an announcement and waits for its outcome (a failure is an error).
    func post(_ body: String) -> Task<Void, any Error> {
        Task {
            let (status, data) = try await request("POST", "/v1/announcements?wait=true", body)
            guard status == 200, String(decoding: data, as: UTF8.self).contains(#""outcome":"played""#) else {
                throw BenchError("POST \(body): \(status) \(String(decoding: data, as: UTF8.self))")
            }
        }
    }

    /// Median of `GET /v1/health` over 50 requests, in ms: the HTTP share of a POST.
    func httpRoundTrip() async throws -> Double {
        var samples: [Double] = []
        for _ in 0..<50 {
            let began = ContinuousClock.now
            _ = try await request("GET", "/v1/health")
            samples.append((ContinuousClock.now - began).inSeconds * 1000)
        }
        return samples.sorted()[samples.count / 2]
    }

    /// Resident set size of `pid` now and at its peak, and its private anonymous memory, in MB.
    static func memory(of pid: Int32) -> (current: Double, peak: Double, anonymous: Double) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Double {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name) } ?? ""
            return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
        }
        return (field("VmRSS:"), field("VmHWM:"), field("RssAnon:"))
    }

    /// The daemon's figures; with `sinkStatesOnly`, only the table of POST to first sample per sink state (of `states`).
    func run(sentence: String, baselines: CLIBaselines?, sinkStatesOnly: Bool = false,
             states: [SinkStateBench.State] = SinkStateBench.State.allCases) async throws {
        let daemon = try await startDaemon()
        defer { kill(daemon.processIdentifier, SIGTERM); daemon.waitUntilExit() }
        try await Task.sleep(for: .seconds(1))
        let idle = Self.memory(of: daemon.processIdentifier)
        print(String(format: "daemon (herald serve) idle after start: RSS %.1f MB, RssAnon %.1f MB", idle.current, idle.anonymous))
        try await post(#"{"text": "\#(sentence)"}"#).value
        let rows = try await SinkStateBench(daemon: self, sentence: sentence, states: states).run()
        var sink = try await bench.connection.sink(named: bench.sink)
        sink.state = .suspended
        SinkStateBench.printTable(rows, http: try await httpRoundTrip(),
                                  leadIn: bench.context.configuration.safeguard.leadIn(for: sink))
        guard !sinkStatesOnly, let baselines else { return }

        print("the command line through the daemon (its UNIX socket), the sink idle:")
        let environment = ["HERALD_CONFIG": configPath]
        let sayCached = try await bench.onset("herald say via the daemon, cached") { _ in
            try bench.spawn(bench.heraldBinary, ["say", sentence], environment: environment)
        }
        let sayUncached = try await bench.onset("herald say via the daemon, uncached") { run in
            try bench.spawn(bench.heraldBinary, ["say", Bench.uncached(run) + " daemon"], environment: environment)
        }
        print(String(format: "via the daemon: cached / paplay %.2f, uncached / espeak-ng | paplay %.2f (targets <= 1)",
                     sayCached / baselines.paplay, sayUncached / baselines.espeakPipe))
        let warm = try await bench.onset("HTTP POST, cached, warm daemon") { _ in post(#"{"text": "\#(sentence)"}"#) }
        let first = try await firstAfterStart(sentence: sentence, daemon: daemon)
        print(String(format: "first POST after a start / warm POST: %.2f (target <= 2)", first / warm))
        try await burst(daemon: daemon, idle: idle)
        try await storm(daemon: daemon)
        if let broker = Self.brokerPort {
            try await MQTTBench(daemon: self, port: broker).run()
        } else {
            print("MQTT: skipped (no HERALD_BENCH_MQTT_PORT; scripts/bench.sh starts a private broker)")
        }
    }

    /// A cached sentence POSTed the moment a fresh daemon answers, against the warm figure.
    /// The bench's own daemon is paused meanwhile (SIGSTOP), so the fresh one has the sink.
    func firstAfterStart(sentence: String, daemon: Process) async throws -> Double {
        try await waitUntilClosed()
        kill(daemon.processIdentifier, SIGSTOP)
        defer { kill(daemon.processIdentifier, SIGCONT) }
        let fresh = DaemonBench(bench: bench, port: port + 1)
        var samples: [Double] = []
        for _ in 0..<bench.runs {
            let process = try await fresh.startDaemon()
            defer { kill(process.processIdentifier, SIGTERM); process.waitUntilExit() }
            try await bench.probe.waitForSilence()
            bench.probe.arm()
            let began = ContinuousClock.now
            let post = Task { _ = try await fresh.request("POST", "/v1/announcements?wait=true", "{\"text\": \"\(sentence)\"}") }
            let heard = try await bench.probe.heard()
            try await post.value
            samples.append((heard - began).inSeconds * 1000)
        }
        return Bench.report("HTTP POST, first after a start", samples)
    }

    /// Waits until the daemon has closed its safeguard: the close (and the release of the
    /// safeguard lock) may come after an announcement's answer, and a daemon stopped with the lock
    /// held keeps the next one from ever speaking.
    func waitUntilClosed() async throws {
        for _ in 0..<100 {
            let (_, data) = try await request("GET", "/v1/status")
            let status = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            if (status?["daemon"] as? [String: Any])?["safeguard_open"] as? Bool == false { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchError("the daemon kept its safeguard open for 5 s")
    }

    /// Five waves of 400 connections that send half a request and hang on, then close: the
    /// daemon's memory before, at its peak and after (issue 8: it returns to its idle level).
    func storm(daemon: Process) async throws {
        let before = Self.memory(of: daemon.processIdentifier).current
        for _ in 0..<5 {
            var sockets: [Int32] = []
            for _ in 0..<400 {
                guard let fd = LoopbackSocket.connected(port: port) else { continue }
                _ = "GET /v1/health HTTP/1.1\r\nHost: x\r\n".withCString { send(fd, $0, strlen($0), 0) }
                sockets.append(fd)
            }
            try await Task.sleep(for: .seconds(1))
            for fd in sockets { close(fd) }
        }
        try await Task.sleep(for: .seconds(3))
        let after = Self.memory(of: daemon.processIdentifier)
        print(String(format: "connection storm (5 x 400 half-requests): daemon RSS before %.1f MB, peak %.1f MB, 3 s after %.1f MB",
                     before, after.peak, after.current))
    }

    /// The private broker of scripts/bench.sh.
    static var brokerPort: Int? { ProcessInfo.processInfo.environment["HERALD_BENCH_MQTT_PORT"].flatMap(Int.init) }

    /// 1,000 payment POSTs from 8 clients at once.
    func burst(daemon: Process, idle: (current: Double, peak: Double, anonymous: Double)) async throws {
        let total = 1000, clients = 8
        let started = ContinuousClock.now
        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            for client in 0..<clients {
                group.addTask {
                    var statuses: [Int] = []
                    for index in stride(from: client, to: total, by: clients) {
                        let body = #"{"payment": {"amount": "1.\#(index % 100)"}, "priority": "high", "request_id": "burst-\#(index)"}"#
                        statuses.append(try await request("POST", "/v1/announcements", body).0)
                    }
                    return statuses
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let postSeconds = (ContinuousClock.now - started).inSeconds
        let accepted = statuses.filter { $0 == 202 }.count
        // Wait for the queue to drain (payments pile up into summaries), then count the log.
        var burstRows: [AnnouncementRecord] = []
        for _ in 0..<600 {
            // Straight from the SQLite file the daemon writes: every row, not a page of them.
            burstRows = try await bench.context.store.announcements(since: nil, outcome: nil, limit: 100_000)
                .filter { $0.requestID?.hasPrefix("burst-") == true }
            if burstRows.count == total && burstRows.allSatisfy({ $0.outcome != nil }) { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        let ids = Set(burstRows.compactMap(\.requestID))
        let outcomes = Dictionary(grouping: burstRows) { $0.outcome?.rawValue ?? "none" }.mapValues(\.count)
        let memory = Self.memory(of: daemon.processIdentifier)
        print("burst: \(total) POSTs from \(clients) clients in \(String(format: "%.2f", postSeconds)) s"
              + " (\(String(format: "%.0f", Double(total) / postSeconds))/s); accepted \(accepted)/\(total)"
              + "; logged \(burstRows.count), distinct request ids \(ids.count); outcomes \(outcomes.sorted { $0.key < $1.key })")
        print(String(format: "daemon memory: idle RSS %.1f MB (RssAnon %.1f MB); peak RSS %.1f MB; RssAnon after the burst %.1f MB",
                     idle.current, idle.anonymous, memory.peak, memory.anonymous))
    }
}

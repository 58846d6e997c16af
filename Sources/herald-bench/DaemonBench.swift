import Foundation
import HeraldCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The daemon scenario: HTTP POST to audible onset against a scripted pactl + espeak-ng + paplay
/// baseline, then a burst of POSTs from concurrent clients.
struct DaemonBench {
    let bench: Bench
    var port = Int.random(in: 41_000...50_000)
    /// The bench's config with this daemon's port: the CLI finds the daemon (and its socket) by it.
    var configPath: String { bench.folder + "/daemon-\(port).yaml" }

    /// Starts `herald serve` with the bench config; returns it once /v1/health answers.
    func startDaemon() async throws -> Process {
        let text = try String(contentsOfFile: bench.configPath, encoding: .utf8)
        var config = text + "api:\n  listen: 127.0.0.1:\(port)\n"
        if let broker = Self.brokerPort { config += MQTTBench.config(port: broker) }
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
        request.timeoutInterval = 600
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// Resident set size of `pid` now and at its peak, in MB, from /proc.
    static func memory(of pid: Int32) -> (current: Double, peak: Double) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Double {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name) } ?? ""
            return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
        }
        return (field("VmRSS:"), field("VmHWM:"))
    }

    func run(sentence: String) async throws {
        let daemon = try await startDaemon()
        defer { kill(daemon.processIdentifier, SIGTERM); daemon.waitUntilExit() }
        try await Task.sleep(for: .seconds(1))
        let idle = Self.memory(of: daemon.processIdentifier).current
        print("daemon (herald serve, warm), the sink running:")
        _ = try await request("POST", "/v1/announcements?wait=true", "{\"text\": \"\(sentence)\"}")
        let cached = try await bench.onset("HTTP POST, cached sentence") { _ in
            Task { _ = try await request("POST", "/v1/announcements?wait=true", "{\"text\": \"\(sentence)\"}") }
        }
        let pack = try await bench.onset("HTTP POST, pack amount (25.30 USD)") { _ in
            Task { _ = try await request("POST", "/v1/announcements?wait=true", #"{"payment": {"amount": "25.30"}}"#) }
        }
        let environment = ["HERALD_CONFIG": configPath]
        let sayViaDaemon = try await bench.onset("herald say via the daemon's socket, cached") { _ in
            try bench.spawn(bench.heraldBinary, ["say", sentence], environment: environment)
        }
        let paplay = try await bench.onset("baseline: paplay (same cached clip)") { _ in
            try bench.spawn("/usr/bin/paplay", ["-d", bench.sink, bench.folder + "/cached.wav"])
        }
        let first = try await firstAfterStart(sentence: sentence, daemon: daemon)
        // What a user could script: snapshot, raise, duck, speak, restore.
        let script = """
            sink="$1"; text="$2"
            volume=$(pactl get-sink-volume "$sink" | head -1 | awk '{print $5}')
            inputs=$(pactl list short sink-inputs | awk '{print $1}')
            for i in $inputs; do pactl set-sink-input-volume "$i" 30%; done
            pactl set-sink-volume "$sink" 70%
            espeak-ng --stdout "$text" | paplay -d "$sink"
            pactl set-sink-volume "$sink" "$volume"
            for i in $inputs; do pactl set-sink-input-volume "$i" 100%; done
            """
        let scripted = try await bench.onset("baseline: pactl + espeak-ng | paplay script") { _ in
            try bench.spawn("/bin/sh", ["-c", script, "sh", bench.sink, sentence])
        }
        print(String(format: "HTTP cached / script: %.3f (%.1fx faster; target 10x); pack / script: %.3f (%.1fx)",
                     cached / scripted, scripted / cached, pack / scripted, scripted / pack))
        print(String(format: "herald say via the daemon / paplay: %.2f (target <= 1)", sayViaDaemon / paplay))
        print(String(format: "first POST after a start / warm POST: %.2f (target <= 2)", first / cached))
        try await burst(daemon: daemon, idleRSS: idle)
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
        let median = samples.sorted()[samples.count / 2]
        print(String(format: "  %-44@ median %7.1f ms  (min %.1f, max %.1f, n=%d)", "HTTP POST, first after a start" as NSString,
                     median, samples.min() ?? 0, samples.max() ?? 0, samples.count))
        return median
    }

    /// Five waves of 400 connections that send half a request and hang on, then close: the
    /// daemon's memory before, at its peak and after (issue 8: it returns to its idle level).
    func storm(daemon: Process) async throws {
        let before = Self.memory(of: daemon.processIdentifier).current
        for _ in 0..<5 {
            var sockets: [Int32] = []
            for _ in 0..<400 {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(UInt16(port)).bigEndian
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                guard connected == 0 else { close(fd); continue }
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
    func burst(daemon: Process, idleRSS: Double) async throws {
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
        print(String(format: "daemon RSS: idle %.1f MB, peak %.1f MB", idleRSS, memory.peak))
    }
}

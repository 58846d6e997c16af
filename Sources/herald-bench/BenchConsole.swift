import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `herald --config FILE fleet serve` for the benchmark, as an operator starts it, and the
/// page's requests to it, timed.
final class BenchConsole {
    let process = Process()
    let base: String

    /// `name`: its console name; two consoles on one database share the broker's messages.
    init(binary: String, folder: String, brokerPort: Int, database: String, name: String = "bench") throws {
        let port = Int.random(in: 41_000...49_000)
        base = "http://127.0.0.1:\(port)"
        let config = folder + "/console-\(name).yaml"
        try """
            fleet:
              broker: mqtt://127.0.0.1:\(brokerPort)
              database: \(database)
              listen: 127.0.0.1:\(port)
              name: \(name)
            """.write(toFile: config, atomically: true, encoding: .utf8)
        process.executableURL = URLComponents(string: "file://" + binary)?.url
        process.arguments = ["--config", config, "fleet", "serve"]
        // Its log to a file: a pipe nobody reads would stop a console that logs much.
        let log = folder + "/console-\(name).log"
        guard FileManager.default.createFile(atPath: log, contents: nil) else { throw BenchError("cannot write \(log)") }
        process.standardError = FileHandle(forWritingAtPath: log)
        // Its spool in the bench's folder, not the user's state folder.
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_STATE_HOME": folder + "/state-\(name)"]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    /// Waits (up to 30 s) until it answers `/v1/health` with ok.
    func waitUntilReady(log: String) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while (try? JSONSerialization.jsonObject(with: try await request("/v1/health")) as? [String: String])?["status"] != "ok" {
            guard process.isRunning else { throw BenchError("herald fleet serve exited; see \(log)") }
            guard ContinuousClock.now < deadline else { throw BenchError("herald fleet serve did not answer in 30 s; see \(log)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// SIGTERM, and SIGKILL after 20 s: a console that does not stop must not hold the bench.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(20)
        while process.isRunning && ContinuousClock.now < deadline { usleep(50_000) }
        if process.isRunning {
            print("  (herald fleet serve did not stop within 20 s of SIGTERM; killed)")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }

    func bytes(_ path: String) async throws -> Int { try await request(path).count }

    private func request(_ path: String) async throws -> Data { try await Self.get(base, path) }

    private static func get(_ base: String, _ path: String) async throws -> Data {
        let (data, response) = try await URLSession.shared.data(from: URL(string: base + path)!)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw BenchError("GET \(path): \((response as? HTTPURLResponse)?.statusCode ?? 0) \(String(decoding: data, as: UTF8.self))")
        }
        return data
    }

    /// The JSON object at `path`.
    func object(_ path: String) async throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: try await request(path)) as? [String: Any] else {
            throw BenchError("GET \(path): not a JSON object")
        }
        return object
    }

    /// Median milliseconds of `steps` in order (`a|b`: those requests at once), over `runs` runs
    /// after one untimed.
    @discardableResult
    func time(_ label: String, _ steps: [String], runs: Int) async throws -> Double {
        var samples: [Double] = []
        let base = base
        for run in 0...runs {
            let started = ContinuousClock.now
            for step in steps {
                try await withThrowingTaskGroup(of: Data.self) { group in
                    for path in step.split(separator: "|") { group.addTask { try await Self.get(base, String(path)) } }
                    try await group.waitForAll()
                }
            }
            if run > 0 { samples.append((ContinuousClock.now - started).inSeconds * 1000) }
        }
        return Bench.report(label, samples)
    }

    /// The CPU time it has used so far (user and system), in seconds.
    var cpuSeconds: Double {
        let stat = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)) ?? ""
        // After the command's name in parentheses: state is field 3, utime 14, stime 15.
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The console's largest resident set so far (VmHWM), in MB.
    var peakResidentMB: Double {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Double(line.split(separator: " ").dropFirst().first ?? "0").map { $0 / 1024 } ?? 0
    }
}

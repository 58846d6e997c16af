import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running `herald serve` for one test harness, driven over HTTP on loopback.
final class Daemon {
    let process: Process
    let base: String

    /// Starts `herald serve` with `harness`'s config, or with none at all (the built-in defaults,
    /// port 7370) when `harness` is nil; `environment` adds to the test's own.
    /// The harness whose folder the daemon uses, kept alive as long as the daemon.
    private let harness: HeraldHarness?

    init(_ harness: HeraldHarness?, port: Int = 7370, environment: [String: String] = [:],
         keeping kept: HeraldHarness? = nil) throws {
        base = "http://127.0.0.1:\(port)"
        self.harness = kept
        var extra = environment
        if let harness { extra["HERALD_CONFIG"] = harness.configPath }
        process = try SoundServer.start(HeraldHarness.binary, ["serve"], environment: extra)
        let base = base
        do {
            // 20 s: a start on a loaded 2-core box is not what these tests measure.
            try SoundServer.waitFor("herald serve to listen", timeout: 20) {
                (try? Self.request("GET", "\(base)/v1/health", timeout: 1).0) == 200
            }
        } catch {
            // Say why: exited (and how, with its last words), or still running without listening.
            let process = process
            let running = process.isRunning
            if running { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let errors = (process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
            let tail = String(decoding: errors.suffix(2000), as: UTF8.self)
            throw SoundServer.CommandFailed(description: "\(error); herald serve \(running ? "was still running (killed now)" : "had exited with status \(process.terminationStatus)"); its standard error ended with: \(tail)")
        }
    }

    /// SIGTERM, then waits for the exit; returns how long the daemon took to exit.
    @discardableResult
    func stop() -> Duration {
        let sent = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        return ContinuousClock.now - sent
    }

    /// kill -9: a crash, no chance to restore anything.
    func crash() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// A blocking HTTP request: (status, JSON body).
    static func request(_ method: String, _ url: String, _ body: String? = nil, timeout: Double = 120) throws -> (Int, Any?) {
        let (status, data, _) = rawRequest(method, url, body, timeout: timeout)
        return (status, data.flatMap { try? JSONSerialization.jsonObject(with: $0) })
    }

    /// A blocking HTTP request: (status, body, Content-Type).
    static func rawRequest(_ method: String, _ url: String, _ body: String? = nil, headers: [String: String] = [:],
                           timeout: Double = 120) -> (Int, Data?, String?) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        request.timeoutInterval = timeout
        // The daemon refuses a body that does not say it is JSON (a browser's form or beacon).
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: (Int, Data?, String?) = (0, nil, nil)
        URLSession.shared.dataTask(with: request) { data, response, _ in
            let http = response as? HTTPURLResponse
            result = (http?.statusCode ?? 0, data, http?.value(forHTTPHeaderField: "Content-Type"))
            done.signal()
        }.resume()
        done.wait()
        return result
    }

    /// The same without blocking a thread: for many requests in flight at once.
    static func requestAsync(_ method: String, _ url: String, _ body: String? = nil) async throws -> Int {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        request.timeoutInterval = 120
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    func post(_ path: String, _ body: String) throws -> (Int, [String: Any]) {
        let (status, json) = try Self.request("POST", base + path, body)
        return (status, json as? [String: Any] ?? [:])
    }

    func get(_ path: String) throws -> [String: Any] {
        try Self.request("GET", base + path).1 as? [String: Any] ?? [:]
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running `herald serve` for one test harness, driven over HTTP on loopback.
final class Daemon {
    let process: Process
    let base: String

    init(_ harness: HeraldHarness, port: Int) throws {
        base = "http://127.0.0.1:\(port)"
        process = try SoundServer.start(HeraldHarness.binary, ["serve"],
                                        environment: ["HERALD_CONFIG": harness.configPath])
        try SoundServer.waitFor("herald serve to listen") { (try? Self.request("GET", "\(base)/v1/health").0) == 200 }
    }

    func stop() {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    /// A blocking HTTP request: (status, JSON body).
    static func request(_ method: String, _ url: String, _ body: String? = nil) throws -> (Int, Any?) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        request.timeoutInterval = 120
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: (Int, Any?) = (0, nil)
        URLSession.shared.dataTask(with: request) { data, response, _ in
            result = ((response as? HTTPURLResponse)?.statusCode ?? 0,
                      data.flatMap { try? JSONSerialization.jsonObject(with: $0) })
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

import Foundation
import Testing

/// The console's API has a lock (issue 42): `fleet.tokens` with the roles `read` and `operate`.
extension OnTheTestSink.FleetTests {
    @Test func withTokensTheAPIWantsOneAndOnlyOperateAcknowledgesAndAnnounces() throws {
        let reader = "read-\(UUID().uuidString)", operator_ = "operate-\(UUID().uuidString)"
        let console = try FleetConsole(name: "k-\(tag)", database: try Postgres.freshDatabase(),
                                       extra: "  tokens:\n    \(reader): read\n    \(operator_): operate")
        func call(_ method: String, _ path: String, _ body: String? = nil, token: String?) -> Int {
            var headers = ["Content-Type": "application/json"]
            if let token { headers["Authorization"] = "Bearer " + token }
            return Daemon.rawRequest(method, console.base + path, body, headers: headers, timeout: 10).0
        }
        let announce = #"{"hub": "care-\#(tag)-k", "text": "A test from the console.", "priority": "critical"}"#
        #expect(call("GET", "/v1/hubs", token: nil) == 401)
        #expect(call("GET", "/v1/hubs", token: "not-a-token-of-this-console") == 401)
        #expect(call("GET", "/metrics", token: nil) == 401)
        #expect(call("POST", "/v1/announce", announce, token: nil) == 401)
        // The page's own files and the health check need none: the page asks for the token.
        #expect(call("GET", "/", token: nil) == 200 && call("GET", "/v1/health", token: nil) == 200)
        #expect(call("GET", "/v1/hubs", token: reader) == 200 && call("GET", "/metrics", token: reader) == 200)
        #expect(call("POST", "/v1/announce", announce, token: reader) == 403)
        #expect(call("POST", "/v1/alarms/1/acknowledge", "{}", token: reader) == 403)
        #expect(call("POST", "/v1/announce", announce, token: operator_) == 202)
        #expect(call("POST", "/v1/alarms/1/acknowledge", "{}", token: operator_) == 404, "past the lock: there is no alarm 1")
        // Guessing is slow: past 30 requests a minute without a valid token, an address gets 429
        // (4 were spent above; the bucket refills by one every 2 s); the right token still opens.
        let answers = (0..<40).map { call("GET", "/v1/hubs", token: "guess-\($0)-0123456789") }
        #expect(answers.prefix(20).allSatisfy { $0 == 401 } && answers.suffix(8).allSatisfy { $0 == 429 }, "\(answers)")
        #expect(call("GET", "/v1/hubs", token: reader) == 200)
    }
}

extension OnTheTestSink.FleetTests {
    /// With `fleet.tls_cert` and `fleet.tls_key` the page and API are HTTPS only, and a token still
    /// decides; plain HTTP on that port gets no answer.
    @Test func withACertificateTheConsoleServesHTTPSAndTheTokensStillDecide() throws {
        let folder = NSTemporaryDirectory() + "herald-fleet-tls-\(tag)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let authority = try TestCertificates.authority("ca", in: folder)
        let certificate = try TestCertificates.server("console", signedBy: authority, in: folder)
        let reader = "read-\(UUID().uuidString)"
        let console = try FleetConsole(name: "s-\(tag)", database: try Postgres.freshDatabase(),
                                       extra: "  tokens:\n    \(reader): read\n  tls_cert: \(certificate.certificate)\n  tls_key: \(certificate.key)",
                                       authority: authority.certificate)
        func curl(_ arguments: [String]) throws -> String {
            try SoundServer.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", "--cacert", authority.certificate] + arguments).stdout
        }
        #expect(try curl([console.base + "/v1/hubs"]) == "401")
        #expect(try curl(["-H", "Authorization: Bearer \(reader)", console.base + "/v1/hubs"]) == "200")
        #expect(try curl(["-H", "Authorization: Bearer \(reader)", "-H", "Content-Type: application/json", "-d", #"{"hub":"x","text":"hi"}"#,
                          console.base + "/v1/announce"]) == "403")
        let plain = console.base.replacingOccurrences(of: "https://", with: "http://")
        #expect(try curl(["-H", "Authorization: Bearer \(reader)", plain + "/v1/hubs"]) != "200", "plain HTTP is not served")
    }
}

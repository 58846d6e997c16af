import Foundation
import HeraldConfig
import HeraldServer
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// What a web page can make a browser send to the daemon on loopback, sent as the browser would
/// (raw HTTP on a real socket): refused by `Content-Type`, `Host`, `Origin` and
/// `Sec-Fetch-Site`, and nothing is queued. The real browser's view is
/// IntegrationTests/BrowserAttackTests.
@Suite(.serialized)
struct BrowserGuardTests {
    func withServer(_ adjust: @escaping (inout APISettings) -> Void = { _ in },
                    _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        let folder = APITests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let api = try await APITests.makeAPI(folder: folder) { api in
            api.port = 0
            adjust(&api)
        }
        try await api.application(logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }).test(.live) { client in
            try await body(try #require(client.port))
        }
    }

    /// One request on a connection of its own: (status, headers and body as text).
    static func send(_ port: Int, _ method: String, _ path: String, host: String? = nil, headers: [String] = [],
                     body: String? = nil) async throws -> (Int, String) {
        let connection = try RawConnection(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n"
        for header in headers { head += header + "\r\n" }
        if let body { head += "Content-Length: \(body.utf8.count)\r\n" }
        connection.send(head + "\r\n" + (body ?? ""))
        let answer = try #require(await connection.readUntilClosed(seconds: 5), "answered and closed")
        let status = Int(answer.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, answer)
    }

    static func announcementsStored(_ port: Int) async throws -> Int {
        let (_, answer) = try await send(port, "GET", "/v1/announcements")
        let body = try #require(answer.components(separatedBy: "\r\n\r\n").last)
        return (try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [Any])?.count ?? -1
    }

    static let payment = #"{"payment": {"amount": "999.00"}, "priority": "critical"}"#

    @Test func aBodyThatIsNotSaidToBeJSONIs415AndNothingIsQueued() async throws {
        try await withServer { port in
            for contentType in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", nil] {
                let (status, answer) = try await Self.send(port, "POST", "/v1/announcements",
                                                           headers: contentType.map { ["Content-Type: \($0)"] } ?? [], body: Self.payment)
                #expect(status == 415, "\(contentType ?? "no Content-Type"): \(answer)")
                #expect(answer.contains(#""field":"Content-Type""#) && answer.contains("curl --json"), "\(answer)")
            }
            let (paused, _) = try await Self.send(port, "POST", "/v1/queue/pause", headers: ["Content-Type: text/plain"], body: "x")
            #expect(paused == 415)
            #expect(try await Self.announcementsStored(port) == 0, "nothing queued")
            let (accepted, answer) = try await Self.send(port, "POST", "/v1/announcements",
                                                         headers: ["Content-Type: application/json; charset=utf-8"], body: Self.payment)
            #expect(accepted == 202, "JSON that says so is accepted: \(answer)")
        }
    }

    @Test func aNameOtherThanLocalhostOrTheConfiguredOnesIs421() async throws {
        try await withServer({ $0.hostnames = ["herald.local"] }) { port in
            for host in ["evil.example:\(port)", "evil.example", "127.0.0.1.evil.example:\(port)", "localhost.evil.example"] {
                let (status, answer) = try await Self.send(port, "GET", "/v1/announcements", host: host)
                #expect(status == 421, "\(host): \(answer)")
                #expect(answer.contains(#""field":"Host""#) && answer.contains("api.hostnames"), "\(answer)")
            }
            let (posted, _) = try await Self.send(port, "POST", "/v1/announcements", host: "evil.example:\(port)",
                                                  headers: ["Content-Type: application/json"], body: Self.payment)
            #expect(posted == 421)
            for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST", "[::1]:\(port)", "herald.local:\(port)", "Herald.Local."] {
                let (status, answer) = try await Self.send(port, "GET", "/v1/health", host: host)
                #expect(status == 200, "\(host): \(answer)")
            }
            #expect(try await Self.announcementsStored(port) == 0)
        }
    }

    @Test func anotherOriginIs403OnEveryRouteTheEventStreamIncluded() async throws {
        try await withServer { port in
            let foreign = ["Origin: http://evil.example", "Origin: null", "Origin: http://127.0.0.1:8000", "Origin: http://localhost:\(port)"]
            for origin in foreign {
                for (method, path) in [("POST", "/v1/queue/pause"), ("POST", "/v1/current/skip"), ("GET", "/v1/events"),
                                       ("GET", "/v1/announcements"), ("GET", "/v1/status")] {
                    let (status, answer) = try await Self.send(port, method, path, headers: [origin])
                    #expect(status == 403, "\(origin) \(method) \(path): \(answer)")
                    #expect(answer.contains(#""field":"Origin""#), "\(answer)")
                }
                let (status, _) = try await Self.send(port, "POST", "/v1/announcements", headers: [origin, "Content-Type: application/json"],
                                                      body: Self.payment)
                #expect(status == 403)
            }
            for site in ["cross-site", "same-site"] {
                let (status, answer) = try await Self.send(port, "GET", "/v1/announcements", headers: ["Sec-Fetch-Site: \(site)"])
                #expect(status == 403, "\(site): \(answer)")
            }
            #expect(try await Self.announcementsStored(port) == 0)
            // The admin page from its own origin: its requests carry the daemon's own Origin.
            let (own, answer) = try await Self.send(port, "POST", "/v1/announcements",
                                                    headers: ["Origin: http://127.0.0.1:\(port)", "Sec-Fetch-Site: same-origin",
                                                              "Content-Type: application/json"], body: #"{"text": "hello"}"#)
            #expect(own == 202, "\(answer)")
            // A person following a link to the page from another local page gets the page (it holds no data).
            let (page, html) = try await Self.send(port, "GET", "/", headers: ["Sec-Fetch-Site: same-site", "Sec-Fetch-Mode: navigate",
                                                                               "Sec-Fetch-Dest: document"])
            #expect(page == 200)
            #expect(html.lowercased().contains("content-security-policy: default-src 'self'") && html.contains("frame-ancestors 'none'"), "\(html.prefix(600))")
            let (framed, _) = try await Self.send(port, "GET", "/", headers: ["Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: navigate",
                                                                              "Sec-Fetch-Dest: iframe"])
            #expect(framed == 403, "the page in another site's frame")
        }
    }

    @Test func everyAnswerCarriesNosniff() async throws {
        try await withServer { port in
            for (method, path, headers) in [("GET", "/v1/health", []), ("GET", "/", []), ("GET", "/admin.js", []),
                                            ("GET", "/nope", []), ("GET", "/v1/health", ["Origin: null"])] {
                let (_, answer) = try await Self.send(port, method, path, headers: headers)
                #expect(answer.lowercased().contains("x-content-type-options: nosniff"), "\(path): \(answer.prefix(300))")
            }
        }
    }

    /// Each token is a client of its own (issue 42): one till that spent its allowance does not
    /// take another's, though both call from the same address.
    @Test func eachTokenHasItsOwnAllowance() async throws {
        try await withServer({ $0.ratePerMinute = 3; $0.tokens = ["till-a-secret-0123456789": .announce, "till-b-secret-0123456789": .announce] }) { port in
            func pay(_ token: String) async throws -> Int {
                try await Self.send(port, "POST", "/v1/announcements", headers: ["Content-Type: application/json", "Authorization: Bearer \(token)"],
                                    body: #"{"payment": {"amount": "1.00"}}"#).0
            }
            var first: [Int] = []
            for _ in 0..<5 { first.append(try await pay("till-a-secret-0123456789")) }
            #expect(first == [202, 202, 202, 429, 429], "till A spends its own: \(first)")
            var second: [Int] = []
            for _ in 0..<3 { second.append(try await pay("till-b-secret-0123456789")) }
            #expect(second == [202, 202, 202], "till B still has all of its own: \(second)")
        }
    }

    @Test func withoutTokensEachAddressIsRateLimited() async throws {
        try await withServer({ $0.ratePerMinute = 5 }) { port in
            // Refused as malformed, 700 requests spend nothing (issue 42: they used up the
            // till's allowance): every one is answered 400, and the till's payment still gets in.
            var refused: [Int: Int] = [:]
            for index in 0..<700 {
                let body = index.isMultiple(of: 2) ? "{}" : "{"
                refused[try await Self.send(port, "POST", "/v1/announcements", headers: ["Content-Type: application/json"], body: body).0, default: 0] += 1
            }
            #expect(refused == [400: 700], "\(refused)")
            var statuses: [Int] = []
            for _ in 0..<7 {
                statuses.append(try await Self.send(port, "POST", "/v1/announcements", headers: ["Content-Type: application/json"],
                                                    body: #"{"payment": {"amount": "1.00"}}"#).0)
            }
            #expect(statuses.prefix(5).allSatisfy { $0 == 202 }, "the first five are accepted: \(statuses)")
            #expect(statuses.suffix(2).allSatisfy { $0 == 429 }, "then 429: \(statuses)")
            let (_, answer) = try await Self.send(port, "POST", "/v1/queue/pause")
            #expect(answer.contains("api.rate_per_minute"), "\(answer)")
            let (read, _) = try await Self.send(port, "GET", "/v1/announcements")
            #expect(read == 200, "reads are not limited")
        }
        try await withServer({ $0.ratePerMinute = 5 }) { port in
            // A web page's refused requests count against nobody: the tills keep their allowance.
            for _ in 0..<20 {
                _ = try await Self.send(port, "POST", "/v1/queue/pause", headers: ["Origin: http://evil.example"])
            }
            let (till, answer) = try await Self.send(port, "POST", "/v1/announcements", headers: ["Content-Type: application/json"],
                                                     body: #"{"text": "Paid"}"#)
            #expect(till == 202, "\(answer)")
        }
    }

    @Test func oneAddressAtItsCapLosesItsIdleConnectionsNotTheNewOne() async throws {
        try await withServer({ $0.maxConnectionsPerClient = 4 }) { port in
            let idle = try (0..<4).map { _ in try RawConnection(port: port) }
            try await Task.sleep(for: .milliseconds(200))
            let (status, answer) = try await Self.send(port, "GET", "/v1/health")
            #expect(status == 200, "the new connection is served: \(answer)")
            var closed = 0
            for connection in idle where await connection.readUntilClosed(seconds: 1) != nil { closed += 1 }
            #expect(closed >= 1, "the oldest idle connection made room")
        }
    }

    @Test func aConnectionThatSendsNoRequestHeadIsClosedWithinFiveSeconds() async throws {
        try await withServer({ $0.idleTimeout = .seconds(60) }) { port in
            let silent = try RawConnection(port: port)
            let started = ContinuousClock.now
            let closed = await silent.readUntilClosed(seconds: 8)
            #expect(closed != nil, "closed before the idle timeout of 60 s")
            let took = ContinuousClock.now - started
            #expect(took > .seconds(4) && took < .seconds(7), "about 5 s: \(took)")
        }
    }
}

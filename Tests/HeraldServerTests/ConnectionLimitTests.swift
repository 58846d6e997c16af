import Foundation
import HeraldConfig
@testable import HeraldServer
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// A plain TCP client on loopback, to be the idle, slow or dripping client a library would not be.
final class RawConnection: @unchecked Sendable {  // Used by one task at a time.
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    deinit { close(descriptor) }

    /// Sends `text`; false when the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { Foundation.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } >= 0
    }

    /// Everything the server has sent so far.
    private(set) var received: [UInt8] = []

    /// What the server sent, once it has closed the connection; nil when it has not closed within
    /// `seconds` (what arrived meanwhile is kept for the next call). The wait blocks a thread of
    /// Dispatch's, not of the concurrency pool the server under test runs on.
    func readUntilClosed(seconds: Double) async -> String? {
        await withCheckedContinuation { done in
            DispatchQueue.global().async { done.resume(returning: self.blockingRead(seconds: seconds)) }
        }
    }

    private func blockingRead(seconds: Double) -> String? {
        var timeout = timeval(tv_sec: 0, tv_usec: 50_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 { received += buffer[..<count]; continue }
            if count == 0 || errno == ECONNRESET { return String(decoding: received, as: UTF8.self) }
        }
        return nil
    }
}

/// Idle, slow and many connections against the API's real server configuration (`application`).
@Suite(.serialized)
struct ConnectionLimitTests {
    /// The API with `api.idle_timeout` 2 s and `api.body_timeout` 1 s on a free loopback port.
    func withServer(_ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        let folder = APITests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let api = try await APITests.makeAPI(folder: folder) { api in
            api.port = 0
            api.idleTimeout = .seconds(2)
            api.bodyTimeout = .seconds(1)
        }
        try await api.application(logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }).test(.live) { client in
            try await body(try #require(client.port))
        }
    }

    @Test func healthAnswersWhileHundredsOfIdleConnectionsAreHeldAndTheyAreClosed() async throws {
        try await withServer { port in
            // 200: below the listen backlog, so none waits for a SYN to be sent again.
            let idle = try (0..<200).map { _ in try RawConnection(port: port) }
            let started = ContinuousClock.now
            let answer = try RawConnection(port: port)
            answer.send("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            let reply = await answer.readUntilClosed(seconds: 5)
            #expect(reply?.hasPrefix("HTTP/1.1 200") == true, "health answered: \(reply ?? "nothing in 5 s")")
            let waited = ContinuousClock.now - started
            print("figures: /v1/health answered in \(waited) beside 200 idle connections (debug build)")
            // Answered at all is the point (the figure is printed); the bound leaves room for the
            // other suites that start beside this one on two cores.
            #expect(waited < .milliseconds(4500), "beside 200 idle connections")
            // Past the per-client cap (64) the oldest were closed to make room; the newest idle ones
            // are held until the idle timeout (2 s) closes them.
            var closed = 0
            for connection in idle.suffix(20) where await connection.readUntilClosed(seconds: 4) != nil { closed += 1 }
            #expect(closed == 20, "the idle connections were closed")
        }
    }

    /// 64 admin pages' event streams from one address (issue 42: they took every connection slot
    /// of loopback, and every other local client was closed unanswered). Streams past their own
    /// cap are answered 429; health and a payment from the same address are answered; a stream
    /// its client closes cleanly is closed at once.
    @Test func eventStreamsNeverTakeTheSlotsOfRequests() async throws {
        try await withServer { port in
            var streams: [RawConnection] = []
            for _ in 0..<64 {
                let stream = try RawConnection(port: port)
                stream.send("GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                streams.append(stream)
            }
            var refused = 0
            var open: [RawConnection] = []
            for stream in streams {
                if let answer = await stream.readUntilClosed(seconds: 0.3) {
                    if answer.hasPrefix("HTTP/1.1 429") { refused += 1 }
                } else {
                    open.append(stream)
                }
            }
            #expect(open.count == ClientConnections.streamsPerClient)
            #expect(refused == 64 - ClientConnections.streamsPerClient, "streams past the cap are refused, the rest stay open")
            let health = try RawConnection(port: port)
            health.send("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            let healthy = await health.readUntilClosed(seconds: 5)
            #expect(healthy?.hasPrefix("HTTP/1.1 200") == true, "\(healthy ?? "nothing in 5 s")")
            let till = try RawConnection(port: port)
            let body = #"{"payment": {"amount": "12.50"}}"#
            till.send("POST /v1/announcements HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            let accepted = await till.readUntilClosed(seconds: 5)
            #expect(accepted?.hasPrefix("HTTP/1.1 202") == true, "\(accepted ?? "nothing in 5 s")")
            // A page closed: its stream's client shuts its side; the server closes at once, not at the
            // stream's next write.
            let page = try #require(open.first)
            #expect(await page.readUntilClosed(seconds: 0.5) == nil, "still open before its client closes it")
            shutdown(page.descriptor, Int32(SHUT_WR))
            #expect(await page.readUntilClosed(seconds: 1) != nil, "the half-closed stream was closed within a second")
        }
    }

    @Test func aClientSendingItsHeadersSlowlyIsCutOff() async throws {
        try await withServer { port in
            let slow = try RawConnection(port: port)
            let started = ContinuousClock.now
            var cutOff = false
            for character in "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: \(String(repeating: "a", count: 40))\r\n\r\n" {
                guard slow.send(String(character)), await slow.readUntilClosed(seconds: 0.25) == nil else { cutOff = true; break }
            }
            #expect(cutOff, "closed before the headers were complete")
            #expect(ContinuousClock.now - started < .seconds(5), "within the idle timeout of 2 s and a margin")
        }
    }

    @Test func aBodyDrippingPastTheBodyTimeoutGetsA408() async throws {
        try await withServer { port in
            let drip = try RawConnection(port: port)
            drip.send("POST /v1/announcements HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"text\": \"")
            let started = ContinuousClock.now
            var reply: String?
            for _ in 0..<40 where reply == nil {
                drip.send("a")
                reply = await drip.readUntilClosed(seconds: 0.2)
            }
            let answer = try #require(reply, "the server answered and closed")
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
            #expect(answer.contains("api.body_timeout"), "\(answer)")
            #expect(ContinuousClock.now - started < .seconds(3))
        }
    }

    @Test func aRequestNIOCannotParseGetsAJSON400() async throws {
        try await withServer { port in
            let broken = try RawConnection(port: port)
            broken.send("GET /v1/health HTTP/1.1\r\nHost x\r\n\r\n")
            let answer = try #require(await broken.readUntilClosed(seconds: 3), "answered and closed")
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
            #expect(answer.lowercased().contains("content-type: application/json"), "\(answer)")
            let body = try #require(answer.components(separatedBy: "\r\n\r\n").last)
            let error = try #require((try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: [String: String]])?["error"])
            #expect(error["message"]?.contains("not valid HTTP/1.1") == true, "\(body)")
        }
    }
}

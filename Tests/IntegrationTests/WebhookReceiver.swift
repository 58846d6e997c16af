import Foundation
import Synchronization

/// A real HTTP server on loopback that records the bodies POSTed to it: the caregiver's end of
/// an escalation. Answers the first `failFirst` requests 503, to show the retries; with
/// `redirectTo`, answers every request 307 to that URL (a client must not follow it).
final class WebhookReceiver: Sendable {
    let port: Int
    private let listener: Int32
    private let state: Mutex<(bodies: [Data], requests: Int, stopped: Bool)>
    private let failFirst: Int
    private let redirectTo: String?

    init(failFirst: Int = 0, redirectTo: String? = nil) throws {
        self.failFirst = failFirst
        self.redirectTo = redirectTo
        state = Mutex(([], 0, false))
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw SoundServer.CommandFailed(description: "cannot listen for the webhook") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = listener
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// `http://127.0.0.1:PORT/hook`.
    var url: String { "http://127.0.0.1:\(port)/hook" }

    var bodies: [Data] { state.withLock { $0.bodies } }
    var requests: Int { state.withLock { $0.requests } }

    /// The received events as JSON objects.
    var events: [[String: Any]] { bodies.compactMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } }

    func stop() {
        state.withLock { $0.stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve() {
        while !state.withLock({ $0.stopped }) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            handle(connection)
            close(connection)
        }
    }

    private func handle(_ connection: Int32) {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var expected: Int?
        while true {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { break }
            received.append(contentsOf: buffer[0..<count])
            guard let end = received.range(of: Data("\r\n\r\n".utf8)) else { continue }
            if expected == nil {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                expected = end.upperBound + length
            }
            if let expected, received.count >= expected { break }
        }
        guard let end = received.range(of: Data("\r\n\r\n".utf8)) else { return }
        let body = received[end.upperBound...]
        let number = state.withLock { state -> Int in
            state.requests += 1
            if state.requests > failFirst { state.bodies.append(Data(body)) }
            return state.requests
        }
        let status = redirectTo.map { "307 Temporary Redirect\r\nlocation: \($0)" } ?? (number > failFirst ? "200 OK" : "503 Service Unavailable")
        let response = "HTTP/1.1 \(status)\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        _ = response.withCString { write(connection, $0, strlen($0)) }
    }
}

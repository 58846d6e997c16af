import RuntimePaths
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 request to the daemon over its UNIX socket, written and read by hand: the front
/// loads no HTTP client (NIO's start alone took a fifth of `herald say`'s time).
public enum DaemonExchange {
    public enum Outcome: Equatable, Sendable {
        /// No daemon took the request (no socket, nobody listening, or the request could not be
        /// written whole): it was not queued, so herald-full may send or play it.
        case notSent
        /// The daemon answered; `isText` when as text/plain (the summary line asked for).
        case answered(status: Int, body: String, isText: Bool)
        /// The request was sent and no whole answer came back: it may play, so it must not be
        /// sent again.
        case lost(String)
    }

    /// `POST path` with a JSON `body` to the socket at `socketPath`, asking for a text answer.
    public static func post(socketPath: String, path: String, body: String) -> Outcome {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .notSent }
        defer { close(fd) }
        // herald-full's limit for an answer; on a UNIX socket the send timeout bounds connect too
        // (a daemon whose backlog is full).
        // Without them connect and recv could block for ever: herald-full then sends it its way.
        var limit = timeval(tv_sec: 600, tv_usec: 0)
        for option in [SO_SNDTIMEO, SO_RCVTIMEO] {
            guard setsockopt(fd, SOL_SOCKET, option, &limit, socklen_t(MemoryLayout<timeval>.size)) == 0 else { return .notSent }
        }
        guard RuntimePaths.connect(fd, unixPath: socketPath) else { return .notSent }
        let bodyBytes = Array(body.utf8)
        let head = "POST \(path) HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(bodyBytes.count)\r\nConnection: close\r\n\r\n"
        guard sendAll(fd, Array(head.utf8) + bodyBytes) else { return .notSent }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return .lost("the daemon did not answer within 600 s") }
            if count < 0 { return .lost("reading the daemon's answer failed: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            received += buffer[0..<count]
            if let answer = HTTPAnswer(received), answer.isComplete { return answer.outcome }
        }
        guard let answer = HTTPAnswer(received), answer.isComplete || (answer.contentLength == nil && !answer.chunked) else {
            return .lost("the daemon closed the connection before it answered")
        }
        return answer.outcome
    }

    /// Writes all of `bytes`; false when the daemon closed or the write failed (MSG_NOSIGNAL: a
    /// closed socket must not kill the process with SIGPIPE).
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}

/// An HTTP/1.1 response as far as it has arrived: the status, and the body by Content-Length
/// or chunked transfer coding.
struct HTTPAnswer {
    var status: Int
    var contentLength: Int?
    var chunked: Bool
    var isText = false
    var body: [UInt8]

    /// Nil until the whole head has arrived, or when it is not an HTTP response.
    init?(_ bytes: [UInt8]) {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.indices.dropLast(3).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else { return nil }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusWords = lines.first?.split(separator: " ") ?? []
        guard statusWords.count >= 2, statusWords[0].hasPrefix("HTTP/1."), let status = Int(statusWords[1]) else { return nil }
        self.status = status
        contentLength = nil
        chunked = false
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].lowercased()
            let value = parts[1].trimmingSpaces
            // Unsigned (Int would take a minus sign): a negative length must not trap.
            if name == "content-length" { contentLength = UInt32(value).map(Int.init) }
            if name == "content-type" { isText = value.lowercased().hasPrefix("text/plain") }
            if name == "transfer-encoding" && value.lowercased().contains("chunked") { chunked = true }
        }
        body = Array(bytes[(end + 4)...])
    }

    /// What the exchange reports for this answer.
    var outcome: DaemonExchange.Outcome { .answered(status: status, body: text, isText: isText) }

    /// The whole body has arrived (chunked: its last, empty chunk).
    var isComplete: Bool {
        if chunked { return dechunked != nil }
        if let contentLength { return body.count >= contentLength }
        return false
    }

    /// The body as text (chunks joined; up to Content-Length).
    var text: String {
        let bytes = chunked ? (dechunked ?? []) : Array(body.prefix(contentLength ?? body.count))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The chunks joined, or nil until the last one has arrived.
    var dechunked: [UInt8]? {
        var out: [UInt8] = []
        var index = 0
        while true {
            guard let lineEnd = body[index...].indices.dropLast().first(where: { body[$0] == 13 && body[$0 + 1] == 10 }),
                  let size = UInt32(String(decoding: body[index..<lineEnd], as: UTF8.self).split(separator: ";").first?.trimmingSpaces ?? "",
                                    radix: 16).map(Int.init) else { return nil }
            let start = lineEnd + 2
            if size == 0 { return out }
            guard start + size + 2 <= body.count else { return nil }
            out += body[start..<start + size]
            index = start + size + 2
        }
    }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

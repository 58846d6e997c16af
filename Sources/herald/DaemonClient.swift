import AsyncHTTPClient
import Foundation
import HeraldApp
import HeraldConfig
import HeraldCore

/// `herald say` and `herald pay` through a running `herald serve`, so they join its queue
/// instead of racing it for the sink.
struct DaemonClient {
    let settings: APISettings

    /// The token the CLI sends: any configured one (admin first).
    var token: String? {
        settings.tokens.sorted { $0.value == .admin && $1.value != .admin }.first?.key
    }

    /// Sends `request` and waits for its outcome; nil when no daemon answers (then play locally).
    ///
    /// The daemon's local socket first (no token, no TCP); else its TCP port when something
    /// accepts there (a daemon of another user, say). Whether either answers is known from one
    /// connect(2) each, so with no daemon the CLI plays at once.
    func announce(_ request: AnnouncementRequest) async throws -> AnnouncementRecord? {
        guard let payload = Self.payload(for: request) else { return nil }
        let path = "/v1/announcements?wait=true"
        let socket = LocalAPISocket.answering(port: settings.port)
        guard socket != nil || SocketProbe.answers(host: settings.host, port: settings.port) else { return nil }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = client.shutdown() }
        var post: HTTPClientRequest
        if let socket, let url = URL(httpURLWithSocketPath: socket, uri: path) {
            post = HTTPClientRequest(url: url.absoluteString)
        } else {
            var health = HTTPClientRequest(url: settings.baseURL + "/v1/health")
            health.method = .GET
            guard (try? await client.execute(health, timeout: .milliseconds(300)))?.status == .ok else { return nil }
            post = HTTPClientRequest(url: settings.baseURL + path)
            if let token { post.headers.add(name: "Authorization", value: "Bearer \(token)") }
        }
        post.method = .POST
        post.headers.add(name: "Content-Type", value: "application/json")
        post.body = .bytes(Array(try JSONSerialization.data(withJSONObject: payload)))
        let response = try await client.execute(post, timeout: .seconds(600))
        let body = try await response.body.collect(upTo: 1 << 20)
        let data = Data(body.readableBytesView)
        guard (200..<300).contains(Int(response.status.code)) else {
            let message = (try? JSONSerialization.jsonObject(with: data) as? [String: [String: String]])?["error"]
            throw DaemonRefused(status: Int(response.status.code), field: message?["field"], message: message?["message"] ?? "")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(AnnouncementRecord.self, from: data)
    }

    /// The methods the CLI uses (NIO's own type is not this target's to import).
    enum Verb { case GET, POST, DELETE }

    /// One call to the daemon's API: (status, body); nil when no daemon answers.
    func call(_ method: Verb, _ path: String, json: [String: Any]? = nil) async throws -> (status: Int, body: Data)? {
        // One connect(2) first: with no daemon, the HTTP client would retry for about 10 s.
        guard LocalAPISocket.answering(port: settings.port) != nil || SocketProbe.answers(host: settings.host, port: settings.port)
        else { return nil }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = client.shutdown() }
        var request = HTTPClientRequest(url: settings.baseURL + path)
        switch method {
        case .GET: request.method = .GET
        case .POST: request.method = .POST
        case .DELETE: request.method = .DELETE
        }
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(Array(try JSONSerialization.data(withJSONObject: json)))
        }
        guard let response = try? await client.execute(request, timeout: .seconds(30)) else { return nil }
        let body = try await response.body.collect(upTo: 1 << 22)
        return (Int(response.status.code), Data(body.readableBytesView))
    }

    /// The API's JSON for `request`; nil for what only runs locally (a file path).
    static func payload(for request: AnnouncementRequest) -> [String: Any]? {
        var payload: [String: Any] = ["priority": request.priority.rawValue]
        switch request.body {
        case .file: return nil
        case .audioURL(let url): payload["audio_url"] = url
        case .text(let text): payload["text"] = text
        case .payment(let amount):
            payload["payment"] = ["amount": amount.decimalText, "currency": amount.currency.code]
        }
        if let language = request.language { payload["lang"] = language }
        if let voice = request.voice { payload["voice"] = voice }
        if let chime = request.chime { payload["chime"] = chime }
        return payload
    }
}

struct DaemonRefused: Error, CustomStringConvertible {
    var status: Int
    var field: String?
    var message: String
    var description: String { "the daemon refused (\(status)): \(field.map { "\($0): " } ?? "")\(message)" }
}

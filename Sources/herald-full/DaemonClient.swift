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
    /// - Parameter amountAsTyped: a payment's amount to send with no currency: the daemon's config names it.
    func announce(_ request: AnnouncementRequest, amountAsTyped: String? = nil) async throws -> AnnouncementRecord? {
        guard let payload = Self.payload(for: request, amountAsTyped: amountAsTyped) else { return nil }
        // Over TCP, something else may hold the port: only a Herald that answers its health check
        // takes the announcement (the local socket is Herald's own).
        if LocalAPISocket.answering(port: settings.port) == nil {
            guard let health = try? await call(.GET, "/v1/health", timeout: .milliseconds(300)), health.status == 200 else {
                return nil
            }
        }
        guard let (status, data) = try await call(.POST, "/v1/announcements?wait=true", json: payload, timeout: .seconds(600)) else {
            return nil
        }
        guard (200..<300).contains(status) else {
            let message = (try? JSONSerialization.jsonObject(with: data) as? [String: [String: String]])?["error"]
            throw DaemonRefused(status: status, field: message?["field"], message: message?["message"] ?? "")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(AnnouncementRecord.self, from: data)
    }

    /// The methods the CLI uses (NIO's own type is not this target's to import).
    enum Verb { case GET, POST, DELETE }

    /// One call to the daemon's API: (status, body); nil when no daemon answers.
    ///
    /// The daemon's local socket first (no token, no TCP); else its TCP port, with a token, when
    /// something accepts there (a daemon of another user, say). Whether either answers is known
    /// from one connect(2) each, so with no daemon the caller learns it at once. A daemon that
    /// accepted and then failed is an error, not nil: the caller must not play it a second time.
    func call(_ method: Verb, _ path: String, json: [String: Any]? = nil,
              timeout: Duration = .seconds(30)) async throws -> (status: Int, body: Data)? {
        var request: HTTPClientRequest
        if let socket = LocalAPISocket.answering(port: settings.port), let url = URL(httpURLWithSocketPath: socket, uri: path) {
            request = HTTPClientRequest(url: url.absoluteString)
        } else if SocketProbe.answers(host: settings.host, port: settings.port) {
            request = HTTPClientRequest(url: settings.baseURL + path)
            if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        } else {
            return nil
        }
        switch method {
        case .GET: request.method = .GET
        case .POST: request.method = .POST
        case .DELETE: request.method = .DELETE
        }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(Array(try JSONSerialization.data(withJSONObject: json)))
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = client.shutdown() }
        let response = try await client.execute(request, timeout: .nanoseconds(Int64(timeout.inSeconds * 1e9)))
        let body = try await response.body.collect(upTo: 1 << 22)
        return (Int(response.status.code), Data(body.readableBytesView))
    }

    /// The running daemon's `/v1/status` as JSON; nil when none answers.
    func status() async -> [String: Any]? {
        guard let reply = try? await call(.GET, "/v1/status", timeout: .seconds(2)), reply.status == 200 else { return nil }
        return (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any]
    }

    /// The API's JSON for `request`; nil for what only runs locally (a file path).
    static func payload(for request: AnnouncementRequest, amountAsTyped: String? = nil) -> [String: Any]? {
        var payload: [String: Any] = ["priority": request.priority.rawValue]
        switch request.body {
        case .file: return nil
        case .audioURL(let url): payload["audio_url"] = url
        case .text(let text): payload["text"] = text
        case .payment(let amount):
            payload["payment"] = amountAsTyped.map { ["amount": $0] } ?? ["amount": amount.decimalText, "currency": amount.currency.code]
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

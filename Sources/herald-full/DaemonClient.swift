import AsyncHTTPClient
import Foundation
import HeraldApp
import HeraldConfig
import HeraldCore
import HeraldIntake

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
        guard let (status, data) = try await call(.POST, "/v1/announcements?wait=true", json: Array(try JSONEncoder.api.encode(payload)),
                                                  timeout: .seconds(600)) else {
            return nil
        }
        guard (200..<300).contains(status) else {
            let refusal = Self.refusal(in: data)
            throw DaemonRefused(status: status, field: refusal?.field, message: refusal?.message ?? "")
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
    /// - Parameter json: the body, JSON already encoded.
    func call(_ method: Verb, _ path: String, json: [UInt8]? = nil,
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
            request.body = .bytes(json)
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .nanoseconds(Int64(timeout.inSeconds * 1e9)))
        let body = try await response.body.collect(upTo: 1 << 22)
        return (Int(response.status.code), Data(body.readableBytesView))
    }

    /// The running daemon's `/v1/status` as JSON; nil when none answers.
    func status() async -> [String: Any]? {
        guard let reply = try? await call(.GET, "/v1/status", timeout: .seconds(2)), reply.status == 200 else { return nil }
        return (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any]
    }

    /// The API's body for `request`; nil for what only runs locally (a file path).
    static func payload(for request: AnnouncementRequest, amountAsTyped: String? = nil) -> NativeAnnouncement? {
        var payload = NativeAnnouncement(priority: request.priority.rawValue, lang: request.language, voice: request.voice,
                                         chime: request.chime, rooms: request.rooms)
        switch request.body {
        case .file: return nil
        case .audioURL(let url), .fetchedAudio(let url, _): payload.audioUrl = url
        case .text(let text): payload.text = text
        case .payment(let amount):
            payload.payment = amountAsTyped.map { .init(amount: AmountText($0)) }
                ?? .init(amount: AmountText(amount.decimalText), currency: amount.currency.code)
        }
        return payload
    }

    /// The `{"error": {"field", "message"}}` of a refusal; nil when the body is not one.
    static func refusal(in body: Data) -> ErrorBody.Detail? {
        (try? JSONDecoder().decode(ErrorBody.self, from: body))?.error
    }
}

struct DaemonRefused: Error, CustomStringConvertible {
    var status: Int
    var field: String?
    var message: String
    var description: String { "the daemon refused (\(status)): \(field.map { "\($0): " } ?? "")\(message)" }
}

import Foundation
import HeraldConfig
import HeraldCore
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore

/// The console's page and JSON API (docs/fleet.md):
/// `GET /v1/hubs` (`?limit=`, `?after=`, `?since=`, `?group=`, `?state=`, `?q=`), `GET /v1/groups`, `GET /v1/hubs/{hub}`, `GET /v1/alarms` (`?state=`, `?hub=`),
/// `POST /v1/alarms/{id}/acknowledge`, `GET /v1/chart` (`?hub=` or `?group=`), `POST /v1/announce`,
/// `GET /v1/health`, `GET /metrics`, and the page at `/`.
public struct FleetAPI: Sendable {
    let settings: FleetSettings
    let store: FleetStore
    let link: FleetLink
    let metrics: FleetMetrics
    let logger: Logger

    public init(settings: FleetSettings, store: FleetStore, link: FleetLink, metrics: FleetMetrics, logger: Logger) {
        self.settings = settings
        self.store = store
        self.link = link
        self.metrics = metrics
        self.logger = logger
    }

    /// The HTTP server on `fleet.listen`, a `Service`: HTTPS with `fleet.tls_cert` and `fleet.tls_key`.
    /// Throws when those files are not a certificate and its key.
    public func application() throws -> some ApplicationProtocol {
        var server = HTTPServerBuilder.http1()
        if let tls = settings.tls {
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(tls.certificate)
                let key = try NIOSSLPrivateKey(file: tls.key, format: .pem)
                server = try .tls(.http1(), tlsConfiguration: .makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                                                     privateKey: .privateKey(key)))
            } catch {
                throw TLSFilesError(description: "fleet.tls_cert and fleet.tls_key: \(tls.certificate) and \(tls.key) are not a PEM certificate and its private key (\(error))")
            }
        }
        return Application(router: router(), server: server,
                           configuration: .init(address: .hostname(settings.listenHost, port: settings.listenPort), serverName: "herald-fleet"),
                           logger: logger)
    }

    func router() -> Router<FleetRequestContext> {
        let router = Router(context: FleetRequestContext.self)
        router.add(middleware: FleetErrorMiddleware(logger: logger))
        router.add(middleware: FleetGuard(hostnames: [settings.listenHost.lowercased()], scheme: settings.tls == nil ? "http" : "https"))
        router.add(middleware: FleetAuthenticator(tokens: settings.tokens, guesses: TokenBuckets()))
        for path in FleetPage.paths { router.get(RouterPath(path)) { request, _ in FleetPage.response(for: request.uri.path) } }
        router.get("/v1/health") { _, _ in try json(await health()) }
        router.get("/v1/hubs") { request, _ in try await hubs(request) }
        router.get("/v1/groups") { _, _ in try json(try await store.groups()) }
        router.get("/v1/hubs/:hub") { _, context in
            let name = try context.parameters.require("hub")
            guard let hub = try await store.hubs(HubFilter(hub: name)).first else {
                throw FleetAPIError(.notFound, field: "hub", "no hub '\(name)' has been heard of")
            }
            let health = try await store.health(of: name).flatMap { try? HubHealth.decode(Array($0.utf8)) }
            return try json(HubDetail(hub: hub, health: health, events: try await store.events(of: name, limit: 50),
                                      alarms: try await store.alarms(state: nil, hub: name, limit: 50)))
        }
        router.get("/v1/alarms") { request, _ in
            let state = request.uri.queryParameters.get("state")
            if let state, !["open", "closed"].contains(state) {
                throw FleetAPIError(.badRequest, field: "state", "'\(state)' is not an alarm state; use open or closed")
            }
            return try json(try await store.alarms(state: state, hub: request.uri.queryParameters.get("hub")))
        }
        router.post("/v1/alarms/:id/acknowledge") { request, context in
            let text = try context.parameters.require("id")
            guard let id = Int64(text) else { throw FleetAPIError(.badRequest, field: "id", "'\(text)' is not an alarm id") }
            let by = try await Self.object(request)["by"] as? String ?? "the fleet page"
            guard let alarm = try await store.acknowledge(id: id, by: String(by.prefix(100))) else {
                throw FleetAPIError(.notFound, field: "id", "no alarm \(id)")
            }
            logger.notice("fleet: alarm \(id) acknowledged by \(alarm.acknowledgedBy ?? by)")
            return try json(alarm)
        }
        router.get("/v1/chart") { request, _ in
            // Whole UTC hours, as the database buckets them (a half-hour time zone would split them).
            let now = Date().timeIntervalSince1970
            let since = Date(timeIntervalSince1970: (now - now.truncatingRemainder(dividingBy: 3600)) - 23 * 3600)
            let hours = try await store.hourly(since: since, hub: request.uri.queryParameters.get("hub"),
                                               group: request.uri.queryParameters.get("group"))
            return try json(Chart(since: since, hours: hours))
        }
        router.post("/v1/announce") { request, _ in try json(try await announce(Self.object(request)), status: .accepted) }
        router.get("/metrics") { _, _ in
            let text = metrics.render(states: try await store.stateCounts(), alarms: try await store.openAlarmCounts())
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        return router
    }

    /// `{"hub": NAME | "group": NAME, "text": "...", "priority": "normal"}`: published to the hub's
    /// or the group's announce topic with a request id the events will carry.
    func announce(_ body: [String: Any]) async throws -> [String: String] {
        let hub = body["hub"] as? String, group = body["group"] as? String
        guard (hub == nil) != (group == nil), let name = hub ?? group else {
            throw FleetAPIError(.badRequest, field: "hub", "name one hub (\"hub\") or one group (\"group\")")
        }
        guard MQTTSettings.isTopicName(name) else {
            throw FleetAPIError(.badRequest, field: hub == nil ? "group" : "hub", "'\(name)' is not a hub or group name (letters, digits, - _ .)")
        }
        let text = (body["text"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !text.isEmpty, text.count <= 500 else {
            throw FleetAPIError(.badRequest, field: "text", "give the sentence to say, 1 to 500 characters")
        }
        let priority = body["priority"] as? String ?? "normal"
        guard Priority(rawValue: priority) != nil else {
            throw FleetAPIError(.badRequest, field: "priority", "'\(priority)' is not a priority; use critical, high, normal or low")
        }
        let topic = hub.map { "herald/\($0)/announce" } ?? "herald/groups/\(name)/announce"
        let requestID = "fleet-test-" + UUID().uuidString.lowercased()
        // The hubs' own wire type, as the CLI sends it: what the hub's intake decodes.
        let payload = try JSONEncoder.api.encode(NativeAnnouncement(text: text, priority: priority, requestId: requestID))
        do {
            try link.publish(topic, Array(payload))
        } catch {
            throw FleetAPIError(.serviceUnavailable, "the broker is not connected: \(error)")
        }
        logger.notice("fleet: test announcement \(requestID) published to \(topic)")
        return ["request_id": requestID, "topic": topic]
    }

    func health() async -> [String: String] {
        let database = await store.ping()
        let broker = link.isConnected
        var answer = ["status": database && broker ? "ok" : "degraded", "console": settings.name,
                      "database": database ? "ok" : "not answering", "broker": broker ? "connected" : "not connected"]
        if !broker, let error = link.lastError { answer["broker_error"] = error }
        return answer
    }

    /// A JSON object body, or an empty one for none.
    static func object(_ request: Request) async throws -> [String: Any] {
        var request = request
        let buffer = try await request.collectBody(upTo: 16_384)
        guard buffer.readableBytes > 0 else { return [:] }
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any] else {
            throw FleetAPIError(.badRequest, field: "body", "the body is not a JSON object")
        }
        return object
    }
}

/// The certificate or key of `fleet.tls_cert`, `fleet.tls_key` could not be used.
struct TLSFilesError: Error, CustomStringConvertible {
    var description: String
}

/// `GET /v1/hubs/{hub}`.
struct HubDetail: Encodable {
    var hub: HubRow
    var health: HubHealth?
    var events: [FleetEvent]
    var alarms: [AlarmRow]
}

/// `GET /v1/chart`: announcements by outcome per hour over the last 24 hours.
struct Chart: Encodable {
    var since: Date
    var hours: [HourCount]
}

/// A JSON answer: ISO 8601 times, sorted keys.
func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder.compact.encode(value))))
}


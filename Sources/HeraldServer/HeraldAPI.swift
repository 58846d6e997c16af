import Foundation
import HeraldApp
import HeraldConfig
import HeraldCore
import HeraldIntake
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Speech

/// The HTTP API of `herald serve` (DESIGN.md "Interfaces"), on Hummingbird.
public struct HeraldAPI: Sendable {
    let daemon: AnnouncementDaemon
    let live: LiveContext
    let version: String
    let intake: AnnouncementIntake
    /// The MQTT link's state for `/v1/status`; nil when there is no link.
    let link: @Sendable () -> LinkStatus?
    /// The daemon's reminders; nil answers the reminder routes 503 (a server built without them).
    let reminders: ReminderService?
    /// The calendars read into reminders (`GET /v1/calendars`); nil answers it 503.
    let calendars: CalendarService?
    /// The buttons' presses (`POST /v1/buttons/{name}/{event}`); nil answers it 503.
    let buttons: ButtonService?
    /// What `GET /metrics` renders: the process's one exporter.
    let metrics = MetricsExporter.shared

    /// Every request reads the config in force now: a reload applies to the API at once.
    public init(daemon: AnnouncementDaemon, live: LiveContext, version: String,
                link: @escaping @Sendable () -> LinkStatus? = { nil }, reminders: ReminderService? = nil,
                calendars: CalendarService? = nil, buttons: ButtonService? = nil) {
        self.daemon = daemon
        self.live = live
        self.version = version
        self.intake = AnnouncementIntake(live: live)
        self.link = link
        self.reminders = reminders
        self.calendars = calendars
        self.buttons = buttons
    }

    var context: HeraldContext { live.value }

    /// The router with every route; every failure is answered as JSON (`JSONErrorMiddleware`).
    public func router() -> Router<HeraldRequestContext> {
        let router = Router(context: HeraldRequestContext.self)
        let live = self.live
        let routes = RouteTable()
        router.add(middleware: JSONErrorMiddleware(routes: routes, logger: context.logger))
        // What a browser could send is refused first, before it counts against anyone's rate: a
        // web page looping refused requests must not use up the tills' allowance.
        router.add(middleware: BrowserGuard(api: { live.value.configuration.api }))
        router.add(middleware: TokenAuthenticator(api: { live.value.configuration.api }, limiter: RateLimiter()))
        var limit: Int { live.value.configuration.api.maxBodyBytes }
        routes.on(router, .get, "/v1/health") { _, _ in JSONResponse(value: ["status": await health()]) }
        routes.on(router, .post, "/v1/announcements") { request, context in
            let announcement = try await intake.request(from: try await collectBody(request, limit: limit), format: .native,
                                                        source: .api, client: context.client,
                                                        signature: request.headers[Self.signatureField], trusted: context.overLocalSocket)
            return try await submit(announcement, wait: request.uri.queryParameters["wait"] == "true")
        }
        routes.on(router, .post, "/v1/push") { request, context in
            let announcement = try await intake.request(from: try await collectBody(request, limit: limit), format: .push,
                                                        source: .push, client: context.client,
                                                        signature: request.headers[Self.signatureField], trusted: context.overLocalSocket)
            return try await submit(announcement, wait: request.uri.queryParameters["wait"] == "true")
        }
        routes.on(router, .post, "/v1/projects/{project}/messages:send") { request, context in
            try await fcmSend(project: try context.parameters.require("project"),
                              body: try await collectBody(request, limit: limit), client: context.client,
                              signature: request.headers[Self.signatureField], trusted: context.overLocalSocket)
        }
        routes.on(router, .post, "/v1/test") { request, context in
            // The test sentence of the default language's phrases ("Herald is ready.", `speech.phrases.<lang>.test`),
            // in English's voice when that sentence is English's.
            let speech = self.context.configuration.speech
            let language = speech.englishPhrases(for: speech.language).contains(.test) ? "en" : nil
            return try await submit(AnnouncementRequest(body: .text(speech.phrases(for: speech.language).test), source: .api,
                                                        client: context.client, language: language),
                             wait: request.uri.queryParameters["wait"] == "true")
        }
        routes.on(router, .get, "/v1/announcements/{id}") { _, context in
            let id = try context.pathID()
            guard let record = try await self.context.store.announcement(id: id) else {
                throw APIError(.notFound, field: "id", "no announcement \(id)")
            }
            return JSONResponse(value: await HistoryRow.rows([record], context: self.context)[0])
        }
        routes.on(router, .get, "/v1/announcements") { request, _ in
            let query = request.uri.queryParameters
            let limit = try query["limit"].map { value -> Int in
                guard let limit = Int(value), (1...1000).contains(limit) else { throw APIError.badRequest("limit", "must be 1 to 1000") }
                return limit
            } ?? 50
            let outcome = try query["outcome"].map { value -> Outcome in
                guard let outcome = Outcome(rawValue: String(value)) else {
                    throw APIError.badRequest("outcome", "'\(value)' is not one of \(Outcome.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return outcome
            }
            let since = try query["since"].map { value -> Date in
                guard let date = ISO8601DateFormatter().date(from: String(value)) else {
                    throw APIError.badRequest("since", "'\(value)' is not an ISO 8601 time like 2026-11-22T08:00:00Z")
                }
                return date
            }
            let records = try await self.context.store.announcements(since: since, outcome: outcome, limit: limit)
            return JSONResponse(value: await HistoryRow.rows(records, context: self.context))
        }
        routes.on(router, .post, "/v1/announcements/{id}/replay") { request, context in
            let id = try context.pathID()
            return try await replay(id, client: context.client, trusted: context.overLocalSocket,
                                    wait: request.uri.queryParameters["wait"] == "true")
        }
        routes.on(router, .post, "/v1/replay-last") { request, context in
            guard let id = await daemon.lastPlayed else { throw APIError(.notFound, "nothing has played yet") }
            return try await replay(id, client: context.client, trusted: context.overLocalSocket,
                                    wait: request.uri.queryParameters["wait"] == "true")
        }
        routes.on(router, .post, "/v1/current/skip") { _, _ in JSONResponse(value: ["skipped": await daemon.skipCurrent()]) }
        routes.on(router, .post, "/v1/current/pause") { _, _ in JSONResponse(value: ["paused": await daemon.pauseCurrent()]) }
        routes.on(router, .post, "/v1/current/resume") { _, _ in JSONResponse(value: ["resumed": await daemon.resumeCurrent()]) }
        routes.on(router, .post, "/v1/queue/pause") { _, _ in
            await daemon.pause()
            return JSONResponse(value: ["paused": true])
        }
        routes.on(router, .post, "/v1/queue/resume") { _, _ in
            await daemon.resume()
            return JSONResponse(value: ["paused": false])
        }
        routes.on(router, .get, "/v1/status") { _, _ in JSONResponse(value: try await status()) }
        routes.on(router, .get, "/metrics") { _, _ in await metricsResponse() }
        routes.on(router, .get, "/") { _, _ in AdminPage.response(.html) }
        routes.on(router, .get, "/admin.js") { _, _ in AdminPage.response(.script) }
        routes.on(router, .get, "/admin.css") { _, _ in AdminPage.response(.style) }
        routes.on(router, .get, "/v1/events") { _, _ in await eventStream() }
        addReminderRoutes(router, routes: routes, limit: { live.value.configuration.api.maxBodyBytes })
        addButtonRoutes(router, routes: routes)
        addAudioRoutes(router, routes: routes)
        return router
    }

    /// How long a new connection may take to send its first request head (a slow-header
    /// client holding connections open is cut off well before `api.idle_timeout`).
    /// `Herald-Signature`.
    static let signatureField = HTTPField.Name(RequestSignature.headerName)!

    static let headDeadline = TimeAmount.seconds(5)

    /// The HTTP server on `api.listen`, or on `socket` (a UNIX socket for the CLI on this
    /// machine), with the connection limits of `api` (read at start: they need a restart to
    /// change): a first request head not in within 5 s closed, idle clients cut off after
    /// `idle_timeout`, a body not in within `body_timeout` answered 408, at most
    /// `max_connections` at once and `max_connections_per_client` from one address.
    public func application(logger: Logger, socket: String? = nil) -> some ApplicationProtocol {
        let settings = context.configuration.api
        let idle = TimeAmount.nanoseconds(Int64(settings.idleTimeout.inSeconds * 1e9))
        let body = TimeAmount.nanoseconds(Int64(settings.bodyTimeout.inSeconds * 1e9))
        let live = self.live
        let connections = ClientConnections(cap: { live.value.configuration.api.maxConnectionsPerClient })
        let http = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ParserErrorAnswer(), BodyDeadlineHandler(limit: body),
                                        ClientConnectionCap(connections: connections, headDeadline: Self.headDeadline)],
            idleTimeout: idle)
        let address: BindAddress = socket.map { .unixDomainSocket(path: $0) } ?? .hostname(settings.host, port: settings.port)
        return Application(router: router(), server: .http1(configuration: http),
                           configuration: .init(address: address, serverName: "herald",
                                                availableConnectionsDelegate: MaximumAvailableConnections(settings.maxConnections)),
                           onServerRunning: { _ in
                               // The folder is the user's own (0700); the socket says so too.
                               if let socket { chmod(socket, 0o600) }
                           },
                           logger: logger)
    }

    /// Queues a request and answers 202 (or 200 with the outcome when `wait`).
    func submit(_ request: AnnouncementRequest, wait: Bool) async throws -> RecordResponse {
        switch try await daemon.submit(request) {
        case .duplicate(let original):
            return RecordResponse(status: .ok, record: original)
        case .refused(_, let limit):
            throw APIError(.serviceUnavailable, "the queue holds \(limit) announcements; try again later")
        case .accepted(let record):
            guard wait else { return RecordResponse(status: .accepted, record: record) }
            return RecordResponse(status: .ok, record: try await daemon.waitUntilFinished(id: record.id) ?? record)
        }
    }

    /// Says a logged announcement again, as a new one from `client`. A kind that must be signed
    /// is replayed only over the local socket: a replayed payment carries no signature, and
    /// anyone on the machine could otherwise make a payment be said again.
    func replay(_ id: String, client: String, trusted: Bool, wait: Bool) async throws -> RecordResponse {
        guard let record = try await context.store.announcement(id: id),
              var request = AnnouncementRequest(record: record, currency: context.configuration.speech.currency, now: Date()) else {
            throw APIError(.notFound, field: "id", "no announcement \(id) to replay")
        }
        let kind = SignedKind(request.body)
        let required = context.configuration.api.requireSignature
        if !trusted && required.contains(kind) {
            throw APIError(.forbidden, field: "id",
                           "\(kind.rawValue) announcements must be signed (api.require_signature), and a replay would be unsigned; send it again from its sender, or use herald on this machine")
                .counted(as: .signature)
        }
        // A text the backend signed (a payment's words said as text), or one that says a payment
        // (a summary of payments is logged as text): replayed unsigned, it would be a payment no
        // backend sent.
        if !trusted && required.contains(.payment), case .text(let text) = request.body,
           record.signedBy != nil || PaymentWording.cached(overrides: context.configuration.speech.phraseOverrides).template(saidBy: text) != nil {
            throw APIError(.forbidden, field: "id",
                           "this announcement says a payment's words (or was signed), and payments must be signed (api.require_signature): a replay would be unsigned; send it again from its sender, or use herald on this machine")
                .counted(as: .signature)
        }
        request.requestID = nil
        request.replayOf = id
        request.signedBy = nil
        request.signatureMAC = nil
        request.source = .api
        request.client = client
        return try await submit(request, wait: wait)
    }

    struct Status: Encodable, Sendable {
        var version: String
        /// `ok`, or `degraded: <reason>` when the log cannot be written (speech goes on).
        var health: String
        var config: ConfigInForce
        var sound: StatusReport
        var daemon: AnnouncementDaemon.Snapshot
        var cacheHitRate: Double?
        var cacheEntries: Int?
        /// The MQTT link (`mqtt:`); absent when it is off.
        var mqtt: LinkStatus?
        var reminders: ReminderStatus?
    }

    struct LanguageCoverage: Encodable, Sendable {
        var lang: String
        /// Where its amounts' words come from: `hand grammar`, `CLDR`, `voice number rules`.
        var source: String
        /// False while its phrases are machine-written.
        var checked: Bool
    }

    /// The settings in force, so an admin sees a reload take.
    struct ConfigInForce: Encodable, Sendable {
        var file: String?
        var loadedAt: Date
        var sink: String
        var minVolume: String
        var targetVolume: String
        var maxVolume: String
        var duckLevel: String
        var mute: String
        /// Daily windows (`22:00-07:00`) and the volume `play_quieter` raises to.
        var quietHours: [String]
        var quietTargetVolume: String
        /// The languages amounts are said in, each with whether a speaker checked its phrases.
        var languages: [LanguageCoverage]
    }

    func health() async -> String {
        await context.store.degraded.map { "degraded: \($0)" } ?? "ok"
    }

    func status() async throws -> Status {
        let totals = try? await context.clipCache.totals()
        let configuration = context.configuration, safeguard = configuration.safeguard
        let config = ConfigInForce(file: configuration.file, loadedAt: live.loadedAt,
                                   sink: safeguard.sinkName ?? "the default sink",
                                   minVolume: "\(safeguard.minVolume.percent)%", targetVolume: "\(safeguard.targetVolume.percent)%",
                                   maxVolume: "\(safeguard.maxVolume.percent)%", duckLevel: "\(Int((safeguard.duckLevel * 100).rounded()))%",
                                   mute: safeguard.mutePolicy.rawValue,
                                   quietHours: configuration.quietHours.windows.map(\.description),
                                   quietTargetVolume: "\(configuration.quietHours.targetVolume.percent)%",
                                   languages: AmountGrammars.covered.map {
                                       LanguageCoverage(lang: $0, source: AmountGrammars.source(for: $0)?.rawValue ?? "",
                                                        checked: PhraseTable.of($0).checkedBySpeaker)
                                   })
        return Status(version: version, health: await health(), config: config,
                      sound: await StatusReport.gather(context: context, sound: await daemon.soundSystem),
                      daemon: await daemon.snapshot(),
                      cacheHitRate: totals?.hitRate, cacheEntries: totals?.entries, mqtt: link(),
                      reminders: await reminderStatus())
    }
}

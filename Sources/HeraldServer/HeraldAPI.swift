import Foundation
import HeraldApp
import HeraldConfig
import HeraldCore
import HTTPTypes
import Hummingbird
import Logging

/// The HTTP API of `herald serve` (DESIGN.md "Interfaces"), on Hummingbird.
public struct HeraldAPI: Sendable {
    let daemon: AnnouncementDaemon
    let live: LiveContext
    let version: String

    /// Every request reads the config in force now: a reload applies to the API at once.
    public init(daemon: AnnouncementDaemon, live: LiveContext, version: String) {
        self.daemon = daemon
        self.live = live
        self.version = version
    }

    var context: HeraldContext { live.value }
    var remote: RemoteAudio { RemoteAudio(settings: context.configuration.audioURL, cache: context.clipCache) }
    var validator: PayloadValidator {
        let configuration = context.configuration
        return PayloadValidator(remote: remote, maxTextCharacters: configuration.api.maxTextCharacters,
                                speech: configuration.speech, soundsDirectory: configuration.soundsDirectory)
    }

    /// The router with every route.
    public func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let live = self.live
        router.add(middleware: TokenAuthenticator(api: { live.value.configuration.api },
                                                  limiter: RateLimiter(perMinute: live.value.configuration.api.ratePerMinute)))
        var limit: Int { live.value.configuration.api.maxBodyBytes }
        router.get("/v1/health") { _, _ in JSONResponse(value: ["status": "ok"]) }
        router.post("/v1/announcements") { request, _ in
            let payload = try await decodeBody(NativeAnnouncement.self, from: request, limit: limit)
            return try await submit(try await validator.request(from: payload, source: .api), wait: request.uri.queryParameters["wait"] == "true")
        }
        router.post("/v1/push") { request, _ in
            let payload = try await decodeBody(PushPayload.self, from: request, limit: limit)
            return try await submit(try await validator.request(from: payload), wait: request.uri.queryParameters["wait"] == "true")
        }
        router.post("/v1/test") { request, _ in
            try await submit(AnnouncementRequest(body: .text("This is a test of Herald."), source: .api),
                             wait: request.uri.queryParameters["wait"] == "true")
        }
        router.get("/v1/announcements/{id}") { _, context in
            let id = try context.parameters.require("id")
            guard let record = try await self.context.database.announcement(id: id) else {
                throw APIError(.notFound, field: "id", "no announcement \(id)")
            }
            return JSONResponse(value: record)
        }
        router.get("/v1/announcements") { request, _ in
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
            return JSONResponse(value: try await self.context.database.announcements(since: since, outcome: outcome, limit: limit))
        }
        router.post("/v1/announcements/{id}/replay") { request, context in
            let id = try context.parameters.require("id")
            return try await replay(id, wait: request.uri.queryParameters["wait"] == "true")
        }
        router.post("/v1/replay-last") { request, _ in
            guard let id = await daemon.lastPlayed else { throw APIError(.notFound, "nothing has played yet") }
            return try await replay(id, wait: request.uri.queryParameters["wait"] == "true")
        }
        router.post("/v1/current/skip") { _, _ in JSONResponse(value: ["skipped": await daemon.skipCurrent()]) }
        router.post("/v1/current/pause") { _, _ in JSONResponse(value: ["paused": await daemon.pauseCurrent()]) }
        router.post("/v1/current/resume") { _, _ in JSONResponse(value: ["resumed": await daemon.resumeCurrent()]) }
        router.post("/v1/queue/pause") { _, _ in
            await daemon.pause()
            return JSONResponse(value: ["paused": true])
        }
        router.post("/v1/queue/resume") { _, _ in
            await daemon.resume()
            return JSONResponse(value: ["paused": false])
        }
        router.get("/v1/status") { _, _ in JSONResponse(value: try await status()) }
        return router
    }

    /// Queues a request and answers 202 (or 200 with the outcome when `wait`).
    func submit(_ request: AnnouncementRequest, wait: Bool) async throws -> JSONResponse<AnnouncementRecord> {
        if case .audioURL(let url) = request.body {
            // Fetched now, so a slow, huge or non-audio URL is the client's 4xx, not a failed row later.
            do { _ = try await remote.clip(for: url) } catch {
                throw APIError(.unprocessableContent, field: "audio_url", "\(error)")
            }
        }
        switch try await daemon.submit(request) {
        case .duplicate(let original):
            return JSONResponse(status: .ok, value: original)
        case .refused(_, let limit):
            throw APIError(.serviceUnavailable, "the queue holds \(limit) announcements; try again later")
        case .accepted(let record):
            guard wait else { return JSONResponse(status: .accepted, value: record) }
            return JSONResponse(status: .ok, value: try await daemon.waitUntilFinished(id: record.id) ?? record)
        }
    }

    func replay(_ id: String, wait: Bool) async throws -> JSONResponse<AnnouncementRecord> {
        guard let record = try await context.database.announcement(id: id),
              var request = AnnouncementRequest(record: record) else {
            throw APIError(.notFound, field: "id", "no announcement \(id) to replay")
        }
        request.requestID = nil
        request.source = .api
        return try await submit(request, wait: wait)
    }

    struct Status: Encodable, Sendable {
        var version: String
        var sound: StatusReport
        var daemon: AnnouncementDaemon.Snapshot
        var cacheHitRate: Double
        var cacheEntries: Int
    }

    func status() async throws -> Status {
        let totals = try await context.clipCache.totals()
        return Status(version: version, sound: await StatusReport.gather(context: context, sound: await daemon.soundSystem),
                      daemon: await daemon.snapshot(),
                      cacheHitRate: totals.hitRate, cacheEntries: totals.entries)
    }
}

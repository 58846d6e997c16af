import AsyncHTTPClient
import Foundation
import HeraldApp
import HeraldConfig
import HeraldCore
import HeraldServer
import HeraldTesting
import HeraldWeb
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// The HTTP API in-process, with a real SQLite file, on the in-memory sound system (HeraldTesting):
/// the daemon's worker is not started, so nothing plays; these tests are about what the API
/// accepts and answers, and need no sound server. What is heard is tested in IntegrationTests.
struct APITests {
    /// A daemon over a fresh database in `folder`.
    static func makeAPI(folder: String, tokens: [String: APISettings.Role] = [:], queueLimit: Int = 100, ratePerMinute: Int = 600,
                        audioURL: AudioURLSettings = AudioURLSettings(), maxBodyBytes: Int = 4096,
                        adjust: (inout APISettings) -> Void = { _ in }) async throws -> HeraldAPI {
        var configuration = HeraldConfiguration.defaults(stateDirectory: folder)
        configuration.api.tokens = tokens
        configuration.api.ratePerMinute = ratePerMinute
        configuration.api.maxBodyBytes = maxBodyBytes
        configuration.queue.queueLimit = queueLimit
        configuration.audioURL = audioURL
        adjust(&configuration.api)
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        var context = try HeraldContext(configuration: configuration, logger: logger, runtime: .folder(folder))
        context.httpClient = http
        await connector.connectOnce()
        let daemon = AnnouncementDaemon(context: context, connector: connector)
        return HeraldAPI(daemon: daemon, live: LiveContext(context), version: "test")
    }

    /// One HTTP client for every API under test, as `herald serve` makes one for the daemon.
    static let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .herald(connectTimeout: .seconds(2)))

    /// One connector for every API under test, to a sink at 40% in memory.
    static let connector = SoundConnector(logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
                                          connect: { _, _ in InMemorySoundSystem(sink: nullSink(volumes: percent(40, 40))) },
                                          onConnect: { _ in }, changed: {})

    static func folder() -> String { NSTemporaryDirectory() + "herald-api-\(UUID().uuidString)" }

    func json(_ response: TestResponse) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any] ?? [:]
    }

    func post(_ client: some TestClientProtocol, _ path: String, _ body: String,
              headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        if headers[.contentType] == nil { headers[.contentType] = "application/json" }
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    @Test func acceptsReadsAndAnswersRepeatsWithTheOriginal() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await Self.makeAPI(folder: folder).router())
        try await app.test(.live) { client in
            let health = try await client.execute(uri: "/v1/health", method: .get)
            #expect(health.status == .ok)
            let first = try await post(client, "/v1/announcements",
                                       #"{"payment": {"amount": 25.30, "currency": "USD"}, "priority": "high", "request_id": "till-1/0042"}"#)
            #expect(first.status == .accepted)
            let id = try #require(try json(first)["id"] as? String)
            #expect(try json(first)["body"] as? String == "25.30 USD", "read as a decimal from its digits, never a Double")
            let repeated = try await post(client, "/v1/announcements",
                                          #"{"payment": {"amount": "25.30"}, "request_id": "till-1/0042"}"#)
            #expect(repeated.status == .ok)
            #expect(try json(repeated)["id"] as? String == id)
            let read = try await client.execute(uri: "/v1/announcements/\(id)", method: .get)
            #expect(try json(read)["request_id"] as? String == "till-1/0042")
            let list = try await client.execute(uri: "/v1/announcements?limit=5", method: .get)
            let rows = try JSONSerialization.jsonObject(with: Data(list.body.readableBytesView)) as? [[String: Any]]
            #expect(rows?.count == 1)
        }
        // A restart: a new daemon on the same database still knows the request id.
        let restarted = Application(router: try await Self.makeAPI(folder: folder).router())
        try await restarted.test(.router) { client in
            let again = try await post(client, "/v1/announcements", #"{"text": "x", "request_id": "till-1/0042"}"#)
            #expect(again.status == .ok)
            #expect(try json(again)["body"] as? String == "25.30 USD")
        }
    }

    @Test func pushMessagesAloneOrInAnFCMWrapper() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await Self.makeAPI(folder: folder).router())
        try await app.test(.router) { client in
            let plain = try await post(client, "/v1/push",
                                       #"{"action": "speak_tts", "text": "Order 12 is ready", "voice": "nova", "request_id": "p-1", "timestamp": 1763798400}"#)
            #expect(plain.status == .accepted)
            #expect(try json(plain)["source"] as? String == "push")
            #expect(try json(plain)["voice"] as? String == "nova")
            let wrapped = try await post(client, "/v1/push", """
                {"message": {"token": "device-token", "notification": {"title": "Shop", "body": "Payment received"},
                 "data": {"action": "speak_tts", "text": "Twenty dollars received", "request_id": "p-2"},
                 "apns": {"payload": {"aps": {"sound": "default"}}}}}
                """)
            #expect(wrapped.status == .accepted)
            #expect(try json(wrapped)["body"] as? String == "Twenty dollars received")
        }
    }

    static let malformed: [(String, String, Int, String?)] = [
        ("/v1/announcements", "", 400, nil),
        ("/v1/announcements", "not json", 400, nil),
        ("/v1/announcements", "[1, 2]", 400, nil),
        ("/v1/announcements", "{}", 400, nil),
        ("/v1/announcements", #"{"text": 5}"#, 400, "text"),
        ("/v1/announcements", #"{"text": null}"#, 400, nil),
        ("/v1/announcements", #"{"text": ""}"#, 400, "text"),
        ("/v1/announcements", #"{"text": "   "}"#, 400, "text"),
        ("/v1/announcements", "{\"text\": \"\(String(repeating: "a", count: 1500))\"}", 400, "text"),
        ("/v1/announcements", #"{"text": "hi", "payment": {"amount": "5"}}"#, 400, nil),
        ("/v1/announcements", #"{"text": "hi", "priority": "urgent"}"#, 400, "priority"),
        ("/v1/announcements", #"{"text": "hi", "priority": 1}"#, 400, "priority"),
        ("/v1/announcements", #"{"payment": {}}"#, 400, "payment.amount"),
        ("/v1/announcements", #"{"payment": {"amount": "-5"}}"#, 400, "payment.amount"),
        ("/v1/announcements", #"{"payment": {"amount": "0"}}"#, 400, "payment.amount"),
        ("/v1/announcements", #"{"payment": {"amount": "0.00", "currency": "EUR"}}"#, 400, "payment.amount"),
        ("/v1/announcements", #"{"payment": {"amount": "abc"}}"#, 400, "payment.amount"),
        ("/v1/announcements", #"{"payment": {"amount": "1.234"}}"#, 400, "payment.amount"),
        ("/v1/announcements", #"{"payment": {"amount": "1e9"}}"#, 400, "payment.amount"),
        ("/v1/announcements", #"{"payment": {"amount": "NaN"}}"#, 400, "payment.amount"),
        ("/v1/announcements", #"{"payment": {"amount": "1000000000000"}}"#, 400, "payment.amount"),
        ("/v1/announcements", #"{"payment": {"amount": true}}"#, 400, "payment.amount"),
        ("/v1/announcements", #"{"payment": {"amount": "5", "currency": "XBT"}}"#, 400, "payment.currency"),
        ("/v1/announcements", #"{"payment": {"amount": "5"}, "lang": "as"}"#, 400, "lang"),
        ("/v1/announcements", #"{"clip": "../../etc/passwd"}"#, 400, "clip"),
        ("/v1/announcements", #"{"clip": "no-such-clip"}"#, 400, "clip"),
        ("/v1/announcements", #"{"text": "hi", "chime": "trumpet"}"#, 400, "chime"),
        ("/v1/announcements", #"{"text": "hi", "request_id": ""}"#, 400, "request_id"),
        ("/v1/announcements", #"{"audio_url": "http://evil.example/a.mp3"}"#, 400, "audio_url"),
        ("/v1/announcements", #"{"audio_url": "ftp://127.0.0.1/a.wav"}"#, 400, "audio_url"),
        ("/v1/announcements", #"{"audio_url": "file:///etc/passwd"}"#, 400, "audio_url"),
        ("/v1/announcements", "{\"text\": \"\(String(repeating: "b", count: 5000))\"}", 413, nil),
        ("/v1/push", #"{"action": "delete_all", "text": "x"}"#, 400, "action"),
        ("/v1/push", #"{"action": "speak_tts"}"#, 400, "text"),
        ("/v1/push", #"{"message": {"data": {"action": "speak_tts"}}}"#, 400, "message.data.text"),
        ("/v1/push", #"{"message": {"data": {"text": 5}}}"#, 400, nil),
        ("/v1/announcements", #"{"text": "hi", "sent_at": "yesterday"}"#, 400, "sent_at"),
        ("/v1/push", #"{"action": "speak_tts", "text": "hi", "timestamp": "soon"}"#, 400, "timestamp"),
        ("/v1/push", #"{"message": {"data": {"text": "hi", "timestamp": "-5"}}}"#, 400, "message.data.timestamp"),
    ]

    @Test func aMessageSentLongerAgoThanItsMaxAgeIsLoggedStaleNotQueued() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await Self.makeAPI(folder: folder).router())
        let twoHoursAgo = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-7200))
        let milliseconds = Int(Date().addingTimeInterval(-7200).timeIntervalSince1970 * 1000)
        try await app.test(.live) { client in
            let normal = try await post(client, "/v1/announcements", #"{"text": "Order 12 is ready", "sent_at": "\#(twoHoursAgo)"}"#)
            #expect(try json(normal)["outcome"] as? String == "failed", "normal: max age 30m, logged failed")
            #expect((try json(normal)["error"] as? String)?.contains("max age") == true, "\(String(buffer: normal.body))")
            let low = try await post(client, "/v1/push", #"{"action": "speak_tts", "text": "Low news", "priority": "low", "timestamp": \#(milliseconds)}"#)
            #expect(try json(low)["outcome"] as? String == "dropped_stale")
            let fresh = try await post(client, "/v1/announcements",
                                       #"{"text": "Order 13 is ready", "sent_at": "\#(ISO8601DateFormatter().string(from: Date()))"}"#)
            let freshRow = try json(fresh)
            #expect(fresh.status == .accepted && freshRow["outcome"] as? String == nil, "a fresh one is queued")
        }
    }

    @Test(arguments: malformed)
    func malformedRequestsGetAClearJSONError(path: String, body: String, status: Int, field: String?) async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await Self.makeAPI(folder: folder).router())
        try await app.test(.router) { client in
            let response = try await post(client, path, body)
            #expect(Int(response.status.code) == status)
            let error = try json(response)["error"] as? [String: Any]
            #expect((error?["message"] as? String)?.isEmpty == false, "a message: \(String(buffer: response.body))")
            if let field { #expect(error?["field"] as? String == field) }
            let health = try await client.execute(uri: "/v1/health", method: .get)
            #expect(health.status == .ok, "still serving")
        }
    }

    @Test func tokensAndRoles() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let announce = "announce-token-0123456789", admin = "admin-token-0123456789ab"
        let app = Application(router: try await Self.makeAPI(folder: folder, tokens: [announce: .announce, admin: .admin]).router())
        try await app.test(.router) { client in
            #expect(try await client.execute(uri: "/v1/health", method: .get).status == .ok, "health needs no token")
            #expect(try await post(client, "/v1/announcements", #"{"text": "hi"}"#).status == .unauthorized)
            let wrong = try await post(client, "/v1/announcements", #"{"text": "hi"}"#,
                                       headers: [.authorization: "Bearer not-a-token"])
            #expect(wrong.status == .unauthorized)
            #expect(try json(wrong)["error"] as? [String: String] == ["field": "Authorization", "message": "unknown token"])
            let ok = try await post(client, "/v1/announcements", #"{"text": "hi"}"#, headers: [.authorization: "Bearer \(announce)"])
            #expect(ok.status == .accepted)
            let forbidden = try await post(client, "/v1/queue/pause", "", headers: [.authorization: "Bearer \(announce)"])
            #expect(forbidden.status == .forbidden)
            let allowed = try await post(client, "/v1/queue/pause", "", headers: [.authorization: "Bearer \(admin)"])
            #expect(allowed.status == .ok)
        }
    }

    @Test func aFullQueueRefusesNormalButNotHigh() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await Self.makeAPI(folder: folder, queueLimit: 2).router())
        try await app.test(.router) { client in
            #expect(try await post(client, "/v1/announcements", #"{"text": "one"}"#).status == .accepted)
            #expect(try await post(client, "/v1/announcements", #"{"text": "two"}"#).status == .accepted)
            let full = try await post(client, "/v1/announcements", #"{"text": "three"}"#)
            #expect(full.status == .serviceUnavailable)
            #expect(try await post(client, "/v1/announcements", #"{"text": "pay", "priority": "high"}"#).status == .accepted)
            let failed = try await client.execute(uri: "/v1/announcements?outcome=failed", method: .get)
            let rows = try JSONSerialization.jsonObject(with: Data(failed.body.readableBytesView)) as? [[String: Any]]
            #expect(rows?.count == 1, "the refusal is logged")
        }
    }

    @Test func aTokenThatSendsTooFastIsSlowedDown() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let token = "rate-limited-token-0123"
        let app = Application(router: try await Self.makeAPI(folder: folder, tokens: [token: .announce], ratePerMinute: 3).router())
        try await app.test(.router) { client in
            var statuses: [HTTPResponse.Status] = []
            var retryAfter: String?
            for _ in 0..<4 {
                let response = try await post(client, "/v1/announcements", #"{"text": "hi"}"#,
                                              headers: [.authorization: "Bearer \(token)"])
                statuses.append(response.status)
                retryAfter = response.headers[.retryAfter]
            }
            #expect(statuses == [.accepted, .accepted, .accepted, .tooManyRequests])
            #expect(retryAfter == "20", "3 a minute: one more in 20 s")
        }
    }
}

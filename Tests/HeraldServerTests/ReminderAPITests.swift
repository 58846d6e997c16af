import Foundation
import HeraldApp
import HeraldConfig
import HeraldCore
import HeraldServer
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// The reminder routes in-process over a real SQLite file; the scheduler is not started, so
/// nothing is said: these tests are about what the API accepts, refuses and answers.
struct ReminderAPITests {
    static func makeAPI(folder: String) async throws -> HeraldAPI {
        let configuration = HeraldConfiguration.defaults(stateDirectory: folder)
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let context = try HeraldContext(configuration: configuration, logger: logger)
        let daemon = AnnouncementDaemon(context: context, connector: APITests.connector)
        let live = LiveContext(context)
        return HeraldAPI(daemon: daemon, live: live, version: "test", reminders: ReminderService(live: live, daemon: daemon))
    }

    func call(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, _ body: String = "")
        async throws -> (HTTPResponse.Status, Any?) {
        let response = try await client.execute(uri: path, method: method,
                                                headers: body.isEmpty ? [:] : [.contentType: "application/json"],
                                                body: ByteBuffer(string: body))
        return (response.status, try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)))
    }

    func field(_ json: Any?) -> String? { ((json as? [String: Any])?["error"] as? [String: Any])?["field"] as? String }

    @Test func badInputIsA400NamingTheFieldAndNothingIsCreated() async throws {
        let folder = NSTemporaryDirectory() + "herald-rem-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await Self.makeAPI(folder: folder).router())
        try await app.test(.router) { client in
            let bad: [(String, String)] = [
                (#"{"text": "Pills", "time_zone": "Mars/Olympus", "schedule": {"daily": ["08:00"]}}"#, "time_zone"),
                (#"{"text": "Pills", "schedule": {"daily": ["25:00"]}}"#, "schedule.daily"),
                (#"{"text": "Pills", "schedule": {"daily": ["08:00"], "days": ["funday"]}}"#, "schedule.days"),
                (#"{"text": "Pills", "schedule": {"every": "0m", "from": "09:00", "until": "17:00"}}"#, "schedule.every"),
                (#"{"text": "Pills", "schedule": {"daily": ["08:00"]}, "repeat": {"times": 3}}"#, "repeat.every"),
                (#"{"text": "Pills", "schedule": {"daily": ["08:00"]}, "escalate": "file:///etc/passwd"}"#, "escalate"),
                (#"{"text": " ", "schedule": {"daily": ["08:00"]}}"#, "text"),
                (#"{"text": "Pills", "schedule": {"daily": "08:00"}}"#, "schedule.daily"),
            ]
            for (body, expected) in bad {
                let (status, json) = try await call(client, .post, "/v1/reminders", body)
                #expect(status == .badRequest && field(json) == expected, "\(body): \(status) \(String(describing: json))")
            }
            let (_, list) = try await call(client, .get, "/v1/reminders")
            #expect((list as? [Any])?.isEmpty == true, "nothing half-created")
        }
    }

    @Test func createListAckAndDelete() async throws {
        let folder = NSTemporaryDirectory() + "herald-rem-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await Self.makeAPI(folder: folder).router())
        try await app.test(.router) { client in
            let (status, created) = try await call(client, .post, "/v1/reminders", #"""
                {"text": "Time to take your blood pressure medication", "priority": "normal", "time_zone": "Europe/Berlin",
                 "schedule": {"daily": ["08:00", "20:00"], "days": ["mon", "fri"]}, "repeat": {"every": "5m", "times": 3}}
                """#)
            #expect(status == .created)
            let reminder = try #require(created as? [String: Any])
            let id = try #require(reminder["id"] as? String)
            #expect(reminder["next_due"] is String)
            #expect((reminder["schedule"] as? [String: Any])?["days"] as? [String] == ["mon", "fri"])
            let (_, upcoming) = try await call(client, .get, "/v1/reminders/upcoming?limit=3")
            #expect((upcoming as? [[String: Any]])?.count == 3)
            let (ackStatus, ack) = try await call(client, .post, "/v1/reminders/\(id)/ack")
            #expect(ackStatus == .badRequest && field(ack) == "id", "not said yet: nothing to acknowledge")
            let (unknown, missing) = try await call(client, .post, "/v1/reminders/nope/ack")
            #expect(unknown == .notFound && field(missing) == "id", "no such reminder: 404, as GET answers")
            let (unknownDelete, _) = try await call(client, .delete, "/v1/reminders/nope")
            #expect(unknownDelete == .notFound)
            // An id is matched as the client wrote it, not percent-encoded (a config name may hold a space).
            let (_, spaced) = try await call(client, .get, "/v1/reminders/config:morning%20pills")
            let message = ((spaced as? [String: Any])?["error"] as? [String: Any])?["message"] as? String
            #expect(message?.contains("config:morning pills") == true, "\(message ?? "no message")")
            let (deleted, _) = try await call(client, .delete, "/v1/reminders/\(id)")
            #expect(deleted == .ok)
            let (_, list) = try await call(client, .get, "/v1/reminders")
            #expect((list as? [Any])?.isEmpty == true)
        }
    }
}

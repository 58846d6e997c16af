import Foundation
import HeraldConfig
import HeraldServer
import Hummingbird
import HummingbirdTesting
import Testing

/// `POST /v1/projects/{project}/messages:send`, with the body the Firebase Admin SDK sends
/// (its documented FCM HTTP v1 wire format: `{"message": {...}, "validate_only": bool}`).
struct FCMSendTests {
    let token = "fcm-backend-token-0123456789"

    /// What firebase-admin's `messaging.send(message)` posts for a data message to one token: the
    /// SDK fills `android`, `apns`, `webpush` and `fcm_options` only when set; data values are strings.
    static func adminSDKBody(requestID: String, validateOnly: Bool? = nil) -> String {
        let message = #"""
            {"message": {"token": "hub-device-token", "data": {"action": "speak_tts", "text": "Order 12 is ready",
             "voice": "", "audio_url": "", "request_id": "\#(requestID)", "timestamp": "1795380000000"},
             "android": {"priority": "high", "ttl": "60s"}, "apns": {"headers": {"apns-priority": "10"}},
             "fcm_options": {"analytics_label": "orders"}}
            """#
        guard let validateOnly else { return message + "}" }
        return message + #", "validate_only": \#(validateOnly)}"#
    }

    @Test func theAdminSDKsRequestIsQueuedAndNamedAsFCMNamesIt() async throws {
        let folder = APITests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await APITests.makeAPI(folder: folder, tokens: [token: .announce]).router())
        try await app.test(.live) { client in
            let sent = try await client.execute(uri: "/v1/projects/shop-chain/messages:send", method: .post,
                                                headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                                                body: ByteBuffer(string: Self.adminSDKBody(requestID: "order-12")))
            #expect(sent.status == .ok)
            let name = try #require(try json(sent)["name"] as? String)
            #expect(name.hasPrefix("projects/shop-chain/messages/"))
            let id = String(name.dropFirst("projects/shop-chain/messages/".count))
            let row = try await client.execute(uri: "/v1/announcements/\(id)", method: .get,
                                               headers: [.authorization: "Bearer \(token)"])
            #expect(try json(row)["body"] as? String == "Order 12 is ready")
            #expect(try json(row)["source"] as? String == "push")
            // The SDK retries a send it did not hear back from: the same request id answers the same name.
            let again = try await client.execute(uri: "/v1/projects/shop-chain/messages:send", method: .post,
                                                 headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                                                 body: ByteBuffer(string: Self.adminSDKBody(requestID: "order-12")))
            #expect(try json(again)["name"] as? String == name)
        }
    }

    @Test func aWrongTokenIsRefused() async throws {
        let folder = APITests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await APITests.makeAPI(folder: folder, tokens: [token: .announce]).router())
        try await app.test(.router) { client in
            for headers: HTTPFields in [[.authorization: "Bearer ya29.a-google-oauth-token", .contentType: "application/json"],
                                        [.contentType: "application/json"]] {
                let refused = try await client.execute(uri: "/v1/projects/p/messages:send", method: .post, headers: headers,
                                                       body: ByteBuffer(string: Self.adminSDKBody(requestID: "x-1")))
                #expect(refused.status == .unauthorized)
                #expect((try json(refused)["error"] as? [String: Any])?["field"] as? String == "Authorization")
            }
        }
    }

    @Test func validateOnlyChecksWithoutQueueing() async throws {
        let folder = APITests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await APITests.makeAPI(folder: folder, tokens: [token: .announce]).router())
        try await app.test(.router) { client in
            let headers: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
            let checked = try await client.execute(uri: "/v1/projects/p/messages:send", method: .post, headers: headers,
                                                   body: ByteBuffer(string: Self.adminSDKBody(requestID: "dry-1", validateOnly: true)))
            #expect(checked.status == .ok)
            #expect(try json(checked)["name"] as? String == "projects/p/messages/validate_only")
            let list = try await client.execute(uri: "/v1/announcements", method: .get, headers: headers)
            let rows = try JSONSerialization.jsonObject(with: Data(list.body.readableBytesView)) as? [[String: Any]]
            #expect(rows?.isEmpty == true, "validate_only queues nothing")
            let bad = try await client.execute(uri: "/v1/projects/p/messages:send", method: .post, headers: headers,
                                               body: ByteBuffer(string: #"{"message": {"data": {"action": "speak_tts", "text": "  "}}, "validate_only": true}"#))
            #expect(bad.status == .badRequest)
            #expect((try json(bad)["error"] as? [String: Any])?["field"] as? String == "message.data.text")
            let noMessage = try await client.execute(uri: "/v1/projects/p/messages:send", method: .post, headers: headers,
                                                     body: ByteBuffer(string: #"{"validate_only": true}"#))
            #expect((try json(noMessage)["error"] as? [String: Any])?["field"] as? String == "message")
        }
    }

    func json(_ response: TestResponse) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any] ?? [:]
    }
}

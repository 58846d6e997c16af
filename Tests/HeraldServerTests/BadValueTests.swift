import Foundation
import HeraldServer
import Hummingbird
import HummingbirdTesting
import Testing

/// Values that look almost right: each refused with HTTP 400, naming the field and the value.
struct BadValueTests {
    @Test(arguments: [
        (#"{"payment": {"amount": " 25"}}"#, "payment.amount", "' 25' starts with a space"),
        (#"{"payment": {"amount": "25 "}}"#, "payment.amount", "'25 ' ends with a space"),
        (#"{"payment": {"amount": "\u00a025"}}"#, "payment.amount", "starts with a no-break space (U+00A0)"),
        (#"{"payment": {"amount": "25\t"}}"#, "payment.amount", "ends with a tab"),
        (#"{"text": "hi", "sent_at": "2026-11-23T08:00:00+25:00"}"#, "sent_at", "has the offset +25:00"),
        (#"{"text": "hi", "sent_at": "2026-11-23T08:00:00.250-14:30"}"#, "sent_at", "has the offset -14:30"),
        (#"{"text": "hi", "sent_at": "2026-11-23T08:00:00+05:60"}"#, "sent_at", "has the offset +05:60"),
    ])
    func isRefusedNamingFieldAndValue(body: String, field: String, mentions: String) async throws {
        let folder = APITests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await APITests.makeAPI(folder: folder).router())
        try await app.test(.router) { client in
            let response = try await client.execute(uri: "/v1/announcements", method: .post,
                                                    headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
            #expect(response.status == .badRequest)
            let answer = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
            let error = answer?["error"] as? [String: Any]
            #expect(error?["field"] as? String == field)
            #expect((error?["message"] as? String)?.contains(mentions) == true, "\(String(buffer: response.body))")
        }
    }

    @Test(arguments: ["2026-11-23T08:00:00+14:00", "2026-11-23T08:00:00-12:00", "2026-11-23T08:00:00+05:45",
                      "2026-11-23T08:00:00Z", "2026-11-23T08:00:00.500-09:30"])
    func realOffsetsAreTaken(sentAt: String) async throws {
        let folder = APITests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await APITests.makeAPI(folder: folder).router())
        try await app.test(.router) { client in
            let response = try await client.execute(uri: "/v1/announcements", method: .post, headers: [.contentType: "application/json"],
                                                    body: ByteBuffer(string: #"{"text": "hi", "sent_at": "\#(sentAt)"}"#))
            #expect(response.status != .badRequest, "\(String(buffer: response.body))")
        }
    }
}

import Foundation
import HeraldConfig
import HeraldIntake
import HeraldServer
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import Testing

/// `api.require_signature: [payment]`: a payment is said only with a valid `Herald-Signature`
/// (HMAC-SHA256 over "t.body" with a secret of `api.signing_secrets`), and its row names the
/// secret. Over MQTT: IntegrationTests/MQTTSignatureTests.
struct SignedPaymentTests {
    static let secret = "9f86d081884c7d659a2feaa0c55ad015"
    static let payment = #"{"payment": {"amount": "25.30"}, "priority": "high"}"#

    func withAPI(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let folder = APITests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let api = try await APITests.makeAPI(folder: folder) { api in
            api.signingSecrets = ["till": Self.secret, "old-till": "another-secret-of-32-characters!"]
            api.requireSignature = [.payment]
        }
        try await Application(router: api.router()).test(.router) { client in try await body(client) }
    }

    func post(_ client: some TestClientProtocol, _ body: String, signature: String?, path: String = "/v1/announcements")
        async throws -> (Int, [String: Any]) {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let signature { headers[HTTPField.Name("Herald-Signature")!] = signature }
        let response = try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body))
        let json = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any] ?? [:]
        return (Int(response.status.code), json)
    }

    func rows(_ client: some TestClientProtocol) async throws -> [[String: Any]] {
        let list = try await client.execute(uri: "/v1/announcements", method: .get)
        return try JSONSerialization.jsonObject(with: Data(list.body.readableBytesView)) as? [[String: Any]] ?? []
    }

    func error(_ json: [String: Any]) -> (field: String?, message: String) {
        let error = json["error"] as? [String: Any]
        return (error?["field"] as? String, error?["message"] as? String ?? "")
    }

    @Test func aValidSignatureIsAcceptedAndTheRowNamesItsSecret() async throws {
        try await withAPI { client in
            let (status, row) = try await post(client, Self.payment,
                                               signature: RequestSignature.value(body: Array(Self.payment.utf8), secret: Self.secret))
            #expect(status == 202, "\(row)")
            #expect(row["signed_by"] as? String == "till")
            // The old secret still signs while it is listed (rotation).
            let other = #"{"payment": {"amount": "1.00"}, "request_id": "r-2"}"#
            let (again, second) = try await post(client, other,
                                                 signature: RequestSignature.value(body: Array(other.utf8), secret: "another-secret-of-32-characters!"))
            #expect(again == 202)
            #expect(second["signed_by"] as? String == "old-till")
            // A text is not required to be signed here, and its row says it was not.
            let (text, unsigned) = try await post(client, #"{"text": "Shop opens at nine"}"#, signature: nil)
            #expect(text == 202)
            #expect(unsigned["signed_by"] == nil)
        }
    }

    @Test func anUnsignedWronglySignedStaleOrAlteredPaymentIsRefusedAndNothingIsQueued() async throws {
        try await withAPI { client in
            let body = Array(Self.payment.utf8)
            let stale = RequestSignature.value(body: body, secret: Self.secret, time: Date().addingTimeInterval(-301))
            let future = RequestSignature.value(body: body, secret: Self.secret, time: Date().addingTimeInterval(400))
            let signedOther = RequestSignature.value(body: Array(#"{"payment": {"amount": "2.00"}}"#.utf8), secret: Self.secret)
            let cases: [(String, String?, String)] = [
                ("no header", nil, "must be signed (api.require_signature)"),
                ("a wrong secret", RequestSignature.value(body: body, secret: "not-the-secret-of-this-hub!"), "does not match"),
                ("t too old", stale, "ago, beyond the 300 s allowed"),
                ("t in the future", future, " s in the future, beyond"),
                ("the body changed after signing", signedOther, "does not match"),
                ("no v1", "t=\(Int(Date().timeIntervalSince1970))", "v1= is missing"),
                ("garbage", "sha256=abc", "is not t=UNIX_SECONDS,v1=HEX"),
            ]
            for (name, signature, says) in cases {
                let (status, json) = try await post(client, Self.payment, signature: signature)
                #expect(status == 401, "\(name): \(json)")
                #expect(error(json).field == "Herald-Signature", "\(name)")
                #expect(error(json).message.contains(says), "\(name): \(error(json).message)")
                #expect(!error(json).message.contains("made -"), "a time is said without a sign: \(error(json).message)")
            }
            // A wrong signature is refused even on a kind that needs none.
            let (text, json) = try await post(client, #"{"text": "hello"}"#, signature: signedOther)
            #expect(text == 401, "\(json)")
            #expect(try await rows(client).isEmpty, "nothing queued")
            // The push intake and FCM's send endpoint hold to the same rule.
            let (push, _) = try await post(client, #"{"action": "speak_tts", "text": "hi"}"#, signature: signedOther, path: "/v1/push")
            #expect(push == 401)
        }
    }

    @Test func aSignedRequestSentAgainIsRefusedUnlessItsRequestIDAnswersTheOriginal() async throws {
        try await withAPI { client in
            // Signatures seen are remembered process-wide (HTTP and MQTT share them): a body of its own.
            let payment = #"{"payment": {"amount": "3.03"}}"#
            let signature = RequestSignature.value(body: Array(payment.utf8), secret: Self.secret)
            #expect(try await post(client, payment, signature: signature).0 == 202)
            let (again, json) = try await post(client, payment, signature: signature)
            #expect(again == 401, "a captured request sent again: \(json)")
            #expect(error(json).message.contains("already used"))
            let withID = #"{"payment": {"amount": "7.00"}, "request_id": "order-77"}"#
            let signed = RequestSignature.value(body: Array(withID.utf8), secret: Self.secret)
            let (first, original) = try await post(client, withID, signature: signed)
            let (retry, answer) = try await post(client, withID, signature: signed)
            #expect(first == 202 && retry == 200, "a retry answers with the original")
            #expect(answer["id"] as? String == original["id"] as? String)
            #expect(try await rows(client).count == 2)
        }
    }

    @Test func aPaymentThatMustBeSignedIsNotReplayedUnsigned() async throws {
        try await withAPI { client in
            let payment = #"{"payment": {"amount": "4.04"}}"#
            let signature = RequestSignature.value(body: Array(payment.utf8), secret: Self.secret)
            let (_, row) = try await post(client, payment, signature: signature)
            let id = try #require(row["id"] as? String)
            let (status, json) = try await post(client, "", signature: nil, path: "/v1/announcements/\(id)/replay")
            #expect(status == 403, "\(json)")
            #expect(error(json).message.contains("a replay would be unsigned"))
            #expect(try await rows(client).count == 1)
            // Nor a text the backend signed, nor a text that says a payment (a summary of payments
            // is logged as text): replayed unsigned, each would be a payment nobody sent.
            let signedText = #"{"text": "Payment received: four dollars"}"#
            let (_, signedRow) = try await post(client, signedText, signature: RequestSignature.value(body: Array(signedText.utf8), secret: Self.secret))
            let signedID = try #require(signedRow["id"] as? String)
            let (again, refused) = try await post(client, "", signature: nil, path: "/v1/announcements/\(signedID)/replay")
            #expect(again == 403 && error(refused).message.contains("a replay would be unsigned"), "\(refused)")
            let (plain, plainRow) = try await post(client, #"{"text": "Shop opens at nine"}"#, signature: nil)
            #expect(plain == 202)
            let plainID = try #require(plainRow["id"] as? String)
            let (replayed, _) = try await post(client, "", signature: nil, path: "/v1/announcements/\(plainID)/replay")
            #expect(replayed == 202, "an ordinary text is replayed as before")
        }
    }

    /// A signed payment with a request id, captured and sent again by another client (another
    /// token, or over MQTT), is refused: the dedup is per client, the signature is per request.
    @Test func aSignedPaymentCannotBeSaidAgainByAnotherClient() async throws {
        let folder = APITests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tillA = String(repeating: "a", count: 32), tillB = String(repeating: "b", count: 32)
        let api = try await APITests.makeAPI(folder: folder, tokens: [tillA: .announce, tillB: .announce]) { api in
            api.signingSecrets = ["till": Self.secret]
            api.requireSignature = [.payment]
        }
        try await Application(router: api.router()).test(.router) { client in
            let payment = #"{"payment": {"amount": "5.05"}, "request_id": "order-505"}"#
            let signature = RequestSignature.value(body: Array(payment.utf8), secret: Self.secret)
            func post(_ token: String) async throws -> Int {
                let headers: HTTPFields = [.contentType: "application/json", .authorization: "Bearer \(token)",
                                           HTTPField.Name("Herald-Signature")!: signature]
                return Int(try await client.execute(uri: "/v1/announcements", method: .post, headers: headers,
                                                    body: ByteBuffer(string: payment)).status.code)
            }
            let first = try await post(tillA), retry = try await post(tillA), other = try await post(tillB)
            #expect(first == 202)
            #expect(retry == 200, "the same till's retry answers the original")
            #expect(other == 401, "another client replaying it is refused")
        }
    }

    @Test func aFarNegativeOrFullwidthSignatureIsRefusedNotACrash() throws {
        let body = Array(#"{"payment": {"amount": "1.00"}}"#.utf8)
        #expect(throws: RequestSignature.Problem.self) {
            try RequestSignature.verify("t=-9223372036854775808,v1=" + String(repeating: "ab", count: 32), body: body,
                                        secrets: ["till": Self.secret], tolerance: .seconds(300))
        }
        let good = RequestSignature.value(body: body, secret: Self.secret)
        let fullwidth = good.replacingOccurrences(of: "0", with: "\u{FF10}")
        if fullwidth != good {
            #expect(throws: RequestSignature.Problem.self) {
                try RequestSignature.verify(fullwidth, body: body, secrets: ["till": Self.secret], tolerance: .seconds(300))
            }
        }
    }
}

import Foundation
import HeraldServer
import Hummingbird
import HummingbirdTesting
import Testing

/// The hostile campaign's requests, each answered with a JSON error naming the field, nothing stored.
struct HostileInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var method: HTTPRequest.Method = .post
        var path = "/v1/announcements"
        var body: [UInt8]
        var status: Int = 400
        /// The field the error must name; nil when it must name none.
        var field: String?
        var mentions: String
        var testDescription: String { name }

        init(_ name: String, _ body: String, field: String?, mentions: String) {
            self.name = name
            self.body = Array(body.utf8)
            self.field = field
            self.mentions = mentions
        }

        init(_ name: String, bytes: [UInt8], field: String?, mentions: String) {
            self.name = name
            self.body = bytes
            self.field = field
            self.mentions = mentions
        }

        func with(method: HTTPRequest.Method, path: String, status: Int) -> Case {
            var changed = self
            changed.method = method
            changed.path = path
            changed.status = status
            return changed
        }
    }

    static let cases: [Case] = [
        Case("NUL in a request id", #"{"text": "hi", "request_id": "till-7\u0000/0001"}"#, field: "request_id", mentions: "NUL"),
        Case("NUL in the text", #"{"text": "pay\u0000ment"}"#, field: "text", mentions: "NUL"),
        Case("a raw control byte", "{\"text\": \"pay\u{1}ment\"}", field: "text", mentions: "control character"),
        Case("an escaped C1 control", #"{"text": "pay\u0085ment"}"#, field: "text", mentions: "control character"),
        Case("a tab in a request id", #"{"text": "hi", "request_id": "till\t7"}"#, field: "request_id", mentions: "spaces, control"),
        Case("a trailing comma", #"{"text": "hi",}"#, field: nil, mentions: "no trailing comma"),
        Case("a trailing comma in a list", #"{"text": "hi", "x": [1,]}"#, field: "x[1]", mentions: "no trailing comma"),
        Case("a key twice", #"{"text": "hi", "text": "ho"}"#, field: "text", mentions: "appears twice"),
        Case("text after the object", #"{"text": "hi"} {"#, field: nil, mentions: "after the JSON object"),
        Case("not JSON", "hello", field: nil, mentions: "line 1, column 1"),
        Case("an unquoted key", #"{text: "hi"}"#, field: nil, mentions: "key in double quotes"),
        Case("an empty body", "", field: nil, mentions: "empty"),
        Case("a list at the top", "[1]", field: nil, mentions: "JSON object"),
        Case("a number for text", #"{"text": 5}"#, field: "text", mentions: "must be a string"),
        Case("an object for an amount", #"{"payment": {"amount": {}}}"#, field: "payment.amount", mentions: "an amount"),
        Case("a number for metadata", #"{"text": "hi", "metadata": {"till": 7}}"#, field: "metadata.till", mentions: "must be a string"),
        Case("zero-width text", #"{"text": "\u200b\u200b\u2060"}"#, field: "text", mentions: "nothing to speak"),
        Case("punctuation only", #"{"text": "?!. ..."}"#, field: "text", mentions: "nothing to speak"),
        Case("a path for lang", #"{"text": "hi", "lang": "../../etc"}"#, field: "lang", mentions: "not a language tag"),
        Case("an unknown lang", #"{"text": "hi", "lang": "xx-nope"}"#, field: "lang", mentions: "not a language espeak-ng speaks"),
        Case("a 5,000-character lang", #"{"text": "hi", "lang": "\#(String(repeating: "a", count: 5000))"}"#, field: "lang", mentions: "not a language tag"),
        Case("a path for voice", #"{"text": "hi", "voice": "../../../etc/passwd"}"#, field: "voice", mentions: "not a voice name"),
        Case("an unknown voice", #"{"text": "hi", "voice": "nonexistent-voice"}"#, field: "voice", mentions: "neither an alias"),
        Case("not UTF-8", bytes: Array(#"{"text": ""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8), field: nil, mentions: "UTF-8"),
        Case("a push with NUL", #"{"message": {"data": {"text": "a\u0000b"}}}"#, field: "message.data.text", mentions: "NUL")
            .with(method: .post, path: "/v1/push", status: 400),
        Case("PUT on announcements", "{}", field: nil, mentions: "answers").with(method: .put, path: "/v1/announcements", status: 405),
        Case("DELETE on one announcement", "", field: nil, mentions: "answers GET")
            .with(method: .delete, path: "/v1/announcements/abc", status: 405),
        Case("an unknown path", "", field: nil, mentions: "no endpoint").with(method: .get, path: "/v2/nothing", status: 404),
    ]

    @Test(arguments: cases)
    func isRefusedWithAJSONErrorNamingTheField(_ refused: Case) async throws {
        let folder = APITests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await APITests.makeAPI(folder: folder, maxBodyBytes: 16_384).router())
        try await app.test(.router) { client in
            let response = try await client.execute(uri: refused.path, method: refused.method, headers: [.contentType: "application/json"], body: ByteBuffer(bytes: refused.body))
            #expect(Int(response.status.code) == refused.status)
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            let json = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
            let error = try #require(json?["error"] as? [String: Any], "a JSON error object")
            let message = try #require(error["message"] as? String)
            #expect(error["field"] as? String == refused.field, "\(message)")
            #expect(message.contains(refused.mentions), "\(message)")
            for swiftWord in ["Dictionary<", "Swift.", "Optional(", "DecodingError", "codingPath"] {
                #expect(!message.contains(swiftWord), "no Swift type names: \(message)")
            }
            if refused.status == 405 { #expect(response.headers[.allow]?.isEmpty == false) }
            let stored = try await client.execute(uri: "/v1/announcements", method: .get)
            let rows = try JSONSerialization.jsonObject(with: Data(stored.body.readableBytesView)) as? [Any]
            #expect(rows?.count == 0, "nothing stored")
        }
    }

    @Test func requestIDsAreScopedPerToken() async throws {
        let folder = APITests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tillA = String(repeating: "a", count: 32), tillB = String(repeating: "b", count: 32)
        let app = Application(router: try await APITests.makeAPI(folder: folder, tokens: [tillA: .announce, tillB: .announce]).router())
        try await app.test(.router) { client in
            func post(_ token: String) async throws -> (Int, String?) {
                let response = try await client.execute(uri: "/v1/announcements", method: .post, headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                                                        body: ByteBuffer(string: #"{"text": "Paid", "request_id": "0001"}"#))
                let json = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                return (Int(response.status.code), json?["id"] as? String)
            }
            let (firstStatus, firstID) = try await post(tillA)
            let (otherStatus, otherID) = try await post(tillB)
            let (repeatStatus, repeatID) = try await post(tillA)
            #expect(firstStatus == 202 && otherStatus == 202, "another till's id 0001 is its own")
            #expect(firstID != nil && otherID != nil && firstID != otherID)
            #expect(repeatStatus == 200 && repeatID == firstID, "the same till's repeat answers with its original")
        }
    }
}

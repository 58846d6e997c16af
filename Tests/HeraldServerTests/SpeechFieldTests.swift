import Foundation
import HeraldServer
import Hummingbird
import HummingbirdTesting
import Testing

/// `lang` and `voice` are checked at intake: a 400 naming the field and what to use instead, before
/// anything is queued, so a path or an option never reaches an engine.
@Suite(.serialized)
struct SpeechFieldTests {
    static let refused: [(String, String, String, String)] = [
        ("/v1/announcements", #"{"text": "hi", "lang": "../../etc"}"#, "lang", "is not a language tag"),
        ("/v1/announcements", #"{"text": "hi", "lang": "xx-nope"}"#, "lang", "is not a language espeak-ng speaks"),
        ("/v1/announcements", "{\"text\": \"hi\", \"lang\": \"\(String(repeating: "e", count: 5000))\"}", "lang",
         "(5000 characters) is not a language tag"),
        ("/v1/announcements", #"{"payment": {"amount": "5"}, "lang": "as"}"#, "lang", "amounts cannot be spoken in 'as'"),
        ("/v1/announcements", #"{"text": "hi", "voice": "../../../etc/passwd"}"#, "voice", "is not a voice name"),
        ("/v1/announcements", #"{"text": "hi", "voice": "nonexistent-voice"}"#, "voice", "nor a voice espeak-ng has"),
        ("/v1/announcements", #"{"text": "hi", "voice": "-w/tmp/x.wav"}"#, "voice", "is not a voice name"),
        ("/v1/push", #"{"action": "speak_tts", "text": "hi", "voice": "nonexistent-voice"}"#, "voice", "speech.voices"),
        ("/v1/push", #"{"message": {"data": {"text": "hi", "lang": "../etc"}}}"#, "message.data.lang", "language tag"),
    ]

    @Test(arguments: refused)
    func aBadLanguageOrVoiceIsA400NamingTheField(path: String, body: String, field: String, says: String) async throws {
        let folder = APITests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await APITests.makeAPI(folder: folder, maxBodyBytes: 16_384).router())
        try await app.test(.router) { client in
            let response = try await client.execute(uri: path, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
            #expect(response.status == .badRequest)
            let object = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
            let error = object?["error"] as? [String: Any]
            #expect(error?["field"] as? String == field)
            let message = error?["message"] as? String ?? ""
            #expect(message.contains(says), "\(message)")
            #expect(message.hasSuffix("or omit it"), "says what to do: \(message)")
            let list = try await client.execute(uri: "/v1/announcements", method: .get)
            #expect(String(buffer: list.body) == "[]", "nothing was queued")
        }
    }

    @Test(arguments: [#"{"text": "hi", "lang": "en"}"#, #"{"text": "你好", "lang": "zh"}"#,
                      #"{"text": "hi", "voice": "nova"}"#, #"{"text": "hi", "voice": "en-us+f3", "lang": "en-gb"}"#,
                      #"{"payment": {"amount": "5"}, "lang": "zh"}"#, #"{"text": "hi", "lang": "", "voice": ""}"#])
    func aGoodLanguageVoiceOrAliasIsAccepted(body: String) async throws {
        let folder = APITests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await APITests.makeAPI(folder: folder).router())
        try await app.test(.router) { client in
            let response = try await client.execute(uri: "/v1/announcements", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
            #expect(response.status == .accepted, "\(String(buffer: response.body))")
        }
    }
}

import Foundation
import FuzzSupport
import HeraldApp
import HeraldConfig
import HeraldCore
@testable import HeraldServer
import HeraldStore
import Speech

/// One body through the announcement intake, as `AnnouncementIntake.request` takes it: strict
/// syntax, decoding (`decodeJSON`), then `PayloadValidator`; every refusal must be a 400
/// `APIError` with a message, every request it lets through must hold what the validator promises.
public enum IntakeCheck {
    /// The sounds folder the validator's clip and chime names are looked up in.
    static let soundsDirectory = HeraldConfiguration.defaultSoundsDirectory()
    static let maxTextCharacters = 500
    static let allowedHost = "audio.example.com"

    /// A validator as the daemon makes one, with the `command` engine (no espeak-ng catalog: its
    /// process-global state is not what is fuzzed here) and a clip cache in a scratch folder.
    static let validator: PayloadValidator = {
        let folder = NSTemporaryDirectory() + "herald-fuzz-\(getpid())"
        let database: AppDatabase
        do { database = try AppDatabase(path: folder + "/herald.sqlite") } catch { fatalError("scratch database: \(error)") }
        var audioURL = AudioURLSettings()
        audioURL.allowHosts = [allowedHost]
        var speech = SpeechSettings()
        speech.engine = .command
        speech.command = "true"
        let cache = ClipCache(directory: folder + "/cache", maxBytes: 1_000_000, index: database)
        return PayloadValidator(remote: RemoteAudio(settings: audioURL, cache: cache), maxTextCharacters: maxTextCharacters,
                                speech: speech, soundsDirectory: soundsDirectory)
    }()

    /// Checks `bytes` read as `format`.
    public static func run(_ bytes: [UInt8], format: AnnouncementIntake.Format, source: AnnouncementSource) {
        var syntaxOK = true
        do { try StrictJSON.check(bytes) } catch {
            syntaxOK = false
            Fuzz.require(!error.message.isEmpty, "a syntax error without a message")
        }
        if syntaxOK {
            // What the strict check lets through, Foundation's parser must read (else the client
            // hears "not a JSON object" about a body the check called valid).
            Fuzz.require((try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil,
                         "StrictJSON accepts what JSONSerialization refuses")
        }
        let isPush: Bool
        do { isPush = try AnnouncementIntake.isPush(bytes, format) } catch {
            requireBadRequest(error, "isPush")
            Fuzz.require(!syntaxOK, "isPush refused a body StrictJSON accepts: \(error)")
            return
        }
        if isPush {
            validate(decode(PushPayload.self, bytes, syntaxOK: syntaxOK)) { payload in
                try await validator.request(from: payload, source: source)
            }
        } else {
            validate(decode(NativeAnnouncement.self, bytes, syntaxOK: syntaxOK)) { payload in
                try await validator.request(from: payload, source: source)
            }
        }
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8], syntaxOK: Bool) -> T? {
        do {
            return try decodeJSON(type, from: bytes)
        } catch {
            requireBadRequest(error, "decoding \(type)")
            return nil
        }
    }

    private static func validate<T: Sendable>(_ payload: T?,
                                              _ request: @escaping @Sendable (T) async throws -> AnnouncementRequest) {
        guard let payload else { return }
        switch Fuzz.wait({ try await request(payload) }) {
        case .failure(let error): requireBadRequest(error, "validating")
        case .success(let request): check(request)
        }
    }

    private static func requireBadRequest(_ error: any Error, _ step: String) {
        guard let error = error as? APIError else {
            Fuzz.require(false, "\(step) threw \(type(of: error)), not an APIError: \(error)")
            return
        }
        Fuzz.require(error.status == .badRequest, "\(step): status \(error.status), not 400: \(error.message)")
        Fuzz.require(!error.message.isEmpty, "\(step): a 400 without a message")
    }

    /// What the validator promises of a request it lets through.
    private static func check(_ request: AnnouncementRequest) {
        switch request.body {
        case .text(let text):
            Fuzz.require(!text.isEmpty && text == text.trimmingCharacters(in: .whitespacesAndNewlines), "text not trimmed: \(text.debugDescription)")
            Fuzz.require(text.count <= maxTextCharacters, "text of \(text.count) characters")
        case .payment(let amount):
            Fuzz.require(amount.minorUnits >= 0 && amount.majorUnits <= Amount.maximumMajorUnits, "amount \(amount)")
        case .audioURL(let url):
            Fuzz.require(URL(string: url)?.host?.lowercased() == allowedHost, "audio_url \(url) is not on the allowed host")
        case .file(let path):
            Fuzz.require(path.hasPrefix(soundsDirectory + "/"), "clip \(path) outside the sounds folder")
        }
        if let id = request.requestID {
            Fuzz.require(!id.isEmpty && id.count <= 200, "request id of \(id.count) characters")
        }
        if let language = request.language { Fuzz.require(!language.isEmpty, "empty language") }
        if let voice = request.voice { Fuzz.require(!voice.isEmpty, "empty voice") }
    }
}

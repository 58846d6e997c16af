import Foundation
import FuzzSupport
import HeraldConfig
import HeraldCore
@testable import HeraldIntake
import Speech

/// One body through the announcement intake, as `AnnouncementIntake.request` takes it: strict
/// syntax, decoding (`decodeJSON`), then `PayloadValidator`; every refusal must be a 400
/// `IntakeError` with a message, every request it lets through must hold what the validator promises.
public enum IntakeCheck {
    /// The sounds folder the validator's clip and chime names are looked up in.
    static let soundsDirectory = HeraldConfiguration.defaultSoundsDirectory()
    static let maxTextCharacters = 500
    static let allowedHost = "audio.example.com"

    /// A validator as the daemon makes one, with the `command` engine (no espeak-ng catalog: its
    /// process-global state is not what is fuzzed here).
    static let validator: PayloadValidator = {
        var audioURL = AudioURLSettings()
        audioURL.allowHosts = [allowedHost]
        var speech = SpeechSettings()
        speech.engine = .command
        speech.command = "true"
        return PayloadValidator(audioURL: audioURL, maxTextCharacters: maxTextCharacters, speech: speech,
                                soundsDirectory: soundsDirectory)
    }()

    /// Checks `bytes` read as `format`.
    public static func run(_ bytes: [UInt8], format: AnnouncementIntake.Format, source: AnnouncementSource) {
        let topLevel: StrictJSON.TopLevel
        do { topLevel = try StrictJSON.check(bytes) } catch {
            Fuzz.require(!error.message.isEmpty, "a syntax error without a message")
            return
        }
        // What the strict check lets through, Foundation's parser must read (else the client
        // hears "not a JSON object" about a body the check called valid).
        let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
        Fuzz.require(object != nil, "StrictJSON accepts what JSONSerialization refuses")
        // The check's word on the top-level keys is what a second parse would say.
        let keys = (object as? [String: Any]).map { $0["message"] != nil || $0["action"] != nil } ?? false
        Fuzz.require(topLevel.holdsMessageOrAction == keys, "StrictJSON's message/action report differs from the object's keys")
        if AnnouncementIntake.isPush(topLevel, format) {
            validate(decode(PushPayload.self, bytes)) { payload in
                try await validator.request(from: payload, source: source)
            }
        } else {
            validate(decode(NativeAnnouncement.self, bytes)) { payload in
                try await validator.request(from: payload, source: source)
            }
        }
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) -> T? {
        do {
            return try decodeChecked(type, from: bytes)
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
        guard let error = error as? IntakeError else {
            Fuzz.require(false, "\(step) threw \(type(of: error)), not an IntakeError: \(error)")
            return
        }
        Fuzz.require(error.reason == .badRequest, "\(step): \(error.reason), not a 400: \(error.message)")
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
        case .fetchedAudio(let url, _):
            Fuzz.require(false, "the validator fetched \(url); only the daemon's submit does")
        }
        if let id = request.requestID {
            Fuzz.require(!id.isEmpty && id.count <= 200, "request id of \(id.count) characters")
        }
        if let language = request.language { Fuzz.require(!language.isEmpty, "empty language") }
        if let voice = request.voice { Fuzz.require(!voice.isEmpty, "empty voice") }
    }
}

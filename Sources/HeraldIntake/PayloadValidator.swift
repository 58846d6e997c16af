import Foundation
import HeraldConfig
import HeraldCore
import Speech

/// Turns payloads into requests, checking every field with a message that names it (an
/// `IntakeError`, a 400).
public struct PayloadValidator: Sendable {
    let audioURL: AudioURLSettings
    let maxTextCharacters: Int
    let speech: SpeechSettings
    let soundsDirectory: String
    let rooms: RoomSettings

    /// A validator with the config in force: `audio_url`'s hosts, `api.max_text_chars`,
    /// the speech settings (languages, voices), the sounds folder (clips, chimes) and the rooms.
    /// An `audio_url` is checked here, not fetched: the daemon fetches it when it is submitted.
    public init(audioURL: AudioURLSettings, maxTextCharacters: Int, speech: SpeechSettings, soundsDirectory: String,
                rooms: RoomSettings = .single(.defaults)) {
        self.rooms = rooms
        self.audioURL = audioURL
        self.maxTextCharacters = maxTextCharacters
        self.speech = speech
        self.soundsDirectory = soundsDirectory
    }

    /// The validator of `configuration`: what the daemon's intake and a `--local` run both check with.
    public init(configuration: HeraldConfiguration) {
        self.init(audioURL: configuration.audioURL, maxTextCharacters: configuration.api.maxTextCharacters, speech: configuration.speech,
                  soundsDirectory: configuration.soundsDirectory, rooms: configuration.rooms)
    }

    /// The checked request in a native body.
    public func request(from payload: NativeAnnouncement, source: AnnouncementSource) async throws -> AnnouncementRequest {
        let bodies = [payload.text != nil, payload.payment != nil, payload.clip != nil, payload.audioUrl != nil]
        guard bodies.filter({ $0 }).count == 1 else {
            throw IntakeError.badRequest(nil, "give exactly one of text, payment, clip, audio_url")
        }
        let body: AnnouncementRequest.Body
        if let text = payload.text {
            body = .text(try checkedText(text, field: "text"))
        } else if let payment = payload.payment {
            do {
                body = .payment(try Amount.payment(payment.amount.text, currencyCode: payment.currency, fallback: speech.currency))
            } catch {
                let field = if case .unknownCurrency = error { "payment.currency" } else { "payment.amount" }
                throw IntakeError.badRequest(field, "\(error)".replacingOccurrences(of: "amount: ", with: ""))
            }
        } else if let clip = payload.clip {
            body = .file(path: try clipPath(clip))
        } else {
            body = .audioURL(try checkedURL(payload.audioUrl ?? "", field: "audio_url"))
        }
        let isPayment = payload.payment != nil
        let language = try await checkedLanguage(payload.lang, forPayment: isPayment, field: "lang")
        let voice = try await checkedVoice(payload.voice, field: "voice")
        var request = AnnouncementRequest(body: body, priority: try priority(payload.priority), source: source,
                                          language: language, voice: voice,
                                          chime: try payload.chime.map(checkedChime), requestID: try requestID(payload.requestId))
        request.sentAt = try payload.sentAt.map(Self.sentAt(rfc3339:))
        request.rooms = try checkedRooms(payload.rooms, field: "rooms")
        return request
    }

    /// Room and group names the house has, as given (a group stays a group, so a reload that
    /// changes it applies to what still waits); a 400 naming `field` for an empty list or an
    /// unknown name.
    func checkedRooms(_ names: [String]?, field: String) throws -> [String]? {
        guard let names else { return nil }
        do { _ = try rooms.expand(names) } catch { throw IntakeError.badRequest(field, "\(error)") }
        return names
    }

    /// `sent_at` as RFC 3339, with or without fractions of a second.
    static func sentAt(rfc3339 text: String) throws -> Date {
        // The formatter takes any two-digit offset (+25:00, +05:99); a real one is within ±14:00.
        if let time = text.firstIndex(where: { $0 == "T" || $0 == "t" }),
           let sign = text[time...].lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let digits = text[text.index(after: sign)...].filter { $0 != ":" }  // +05:30, +0530 or +05
            if digits.count == 2 || digits.count == 4, let hours = Int(digits.prefix(2)), let minutes = Int("0" + digits.dropFirst(2)),
               hours * 60 + minutes > 14 * 60 || minutes > 59 {
                throw IntakeError.badRequest("sent_at", "'\(text)' has the offset \(text[sign...]); an offset is at most ±14:00, its minutes 00 to 59; write it like 2026-11-23T08:00:00+01:00")
            }
        }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions.insert(.withFractionalSeconds)
        if let date = formatter.date(from: text) { return date }
        throw IntakeError.badRequest("sent_at", "'\(text)' is not an RFC 3339 time; write it like 2026-11-23T08:00:00Z")
    }

    /// speak_tts's `timestamp`: Unix time in milliseconds (what phone backends send), or in
    /// seconds when the number is too small to be milliseconds of this century.
    static func sentAt(unix text: String, field: String) throws -> Date {
        guard let number = Double(text), number.isFinite, number > 0 else {
            throw IntakeError.badRequest(field, "'\(text)' is not a Unix time; send milliseconds since 1970 such as 1795420800000")
        }
        return Date(timeIntervalSince1970: number >= 100_000_000_000 ? number / 1000 : number)
    }

    /// The checked request in a push body (`speak_tts`).
    public func request(from push: PushPayload, source: AnnouncementSource = .push) async throws -> AnnouncementRequest {
        let fields = push.flattened
        guard fields.action == nil || fields.action == "speak_tts" else {
            throw IntakeError.badRequest(push.message == nil ? "action" : "message.data.action",
                                      "'\(fields.action ?? "")' is not an action Herald performs; use speak_tts")
        }
        let urlField = push.message == nil ? "audio_url" : "message.data.audio_url"
        let sentAt = try fields.timestamp.map {
            try Self.sentAt(unix: $0, field: push.message == nil ? "timestamp" : "message.data.timestamp")
        }
        if let url = fields.audioURL, fields.text == nil {
            var request = AnnouncementRequest(body: .audioURL(try checkedURL(url, field: urlField)),
                                              priority: try priority(fields.priority), source: source,
                                              requestID: try requestID(fields.requestID))
            request.sentAt = sentAt
            request.rooms = try checkedRooms(fields.rooms, field: push.message == nil ? "rooms" : "message.data.rooms")
            return request
        }
        guard let text = fields.text else {
            throw IntakeError.badRequest(push.message == nil ? "text" : "message.data.text", "is required")
        }
        let prefix = push.message == nil ? "" : "message.data."
        let language = try await checkedLanguage(fields.lang, forPayment: false, field: prefix + "lang")
        let voice = try await checkedVoice(fields.voice, field: prefix + "voice")
        var request = AnnouncementRequest(body: .text(try checkedText(text, field: prefix + "text")),
                                          priority: try priority(fields.priority), source: source, language: language,
                                          voice: voice, requestID: try requestID(fields.requestID))
        request.sentAt = sentAt
        request.rooms = try checkedRooms(fields.rooms, field: prefix + "rooms")
        return request
    }

    /// The language, checked against what Herald can speak; an empty one means none was given
    /// (push backends send `""`).
    private func checkedLanguage(_ language: String?, forPayment: Bool, field: String) async throws -> String? {
        guard let language, !language.isEmpty else { return nil }
        do { try await speech.checkLanguage(language, forPayment: forPayment, field: field) } catch {
            throw IntakeError.badRequest(error.field, error.message)
        }
        return language
    }

    /// The voice, checked against the aliases and the engine's voices; empty means none.
    private func checkedVoice(_ voice: String?, field: String) async throws -> String? {
        guard let voice, !voice.isEmpty else { return nil }
        do { try await speech.checkVoice(voice, field: field) } catch {
            throw IntakeError.badRequest(error.field, error.message)
        }
        return voice
    }

    private func checkedURL(_ text: String, field: String) throws -> String {
        do { return try audioURL.allowedURL(text).absoluteString } catch { throw IntakeError.badRequest(field, "\(error)") }
    }

    private func checkedText(_ text: String, field: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw IntakeError.badRequest(field, "is empty") }
        // Zero-width spaces, marks or punctuation alone would play silence and log `played`.
        guard trimmed.unicodeScalars.contains(where: { $0.properties.isAlphabetic || $0.properties.numericType != nil }) else {
            throw IntakeError.badRequest(field, "has nothing to speak (only spaces, punctuation or invisible characters); send words or digits")
        }
        guard trimmed.count <= maxTextCharacters else {
            throw IntakeError.badRequest(field, "is \(trimmed.count) characters; at most \(maxTextCharacters)")
        }
        return trimmed
    }

    private func priority(_ name: String?) throws -> Priority {
        guard let name else { return .normal }
        guard let priority = Priority(rawValue: name.lowercased()) else {
            throw IntakeError.badRequest("priority", "'\(name)' is not one of critical, high, normal, low")
        }
        return priority
    }

    private func requestID(_ id: String?) throws -> String? {
        guard let id else { return nil }
        guard !id.isEmpty, id.count <= 200 else { throw IntakeError.badRequest("request_id", "must be 1 to 200 characters") }
        guard id.unicodeScalars.allSatisfy({ !$0.properties.isWhitespace && ![.control, .format].contains($0.properties.generalCategory) }) else {
            throw IntakeError.badRequest("request_id", "must not contain spaces, control or invisible characters; use letters, digits and punctuation such as till-7/0001")
        }
        return id
    }

    /// `name` when it is `none` or a chime in the sounds folder's chimes/; a 400 naming `chime` otherwise.
    public func checkedChime(_ name: String) throws -> String {
        guard name.lowercased() == "none" || HeraldConfiguration.isClipName(name),
              FileManager.default.fileExists(atPath: "\(soundsDirectory)/chimes/\(name).flac") || name.lowercased() == "none" else {
            throw IntakeError.badRequest("chime", "'\(name)' is not a chime in Sounds/chimes")
        }
        return name
    }

    /// A named clip from the sounds folder's samples/ or chimes/ (no paths from the network).
    private func clipPath(_ name: String) throws -> String {
        guard HeraldConfiguration.isClipName(name) else { throw IntakeError.badRequest("clip", "'\(name)' is not a clip name (letters, digits, - and _)") }
        guard let path = HeraldConfiguration.clipPath(named: name, in: soundsDirectory) else {
            throw IntakeError.badRequest("clip", "no clip named '\(name)' in Sounds/samples or Sounds/chimes")
        }
        return path
    }
}

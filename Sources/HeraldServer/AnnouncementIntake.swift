import Foundation
import HeraldApp
import HeraldCore

/// The one way in for announcements sent as JSON, over HTTP or MQTT: strict syntax, decoding
/// that names the field at fault, validation, then dedup and the queue (DESIGN.md "One path for
/// every announcement"). Every call reads the config in force now.
public struct AnnouncementIntake: Sendable {
    /// Which of the API's payloads a body is.
    public enum Format: Sendable {
        /// `POST /v1/announcements`: one of text, payment, clip, audio_url.
        case native
        /// `POST /v1/push`: the speak_tts message, alone or in an FCM v1 wrapper.
        case push
        /// A push payload when it has `message` or `action` at the top, else a native one (MQTT,
        /// where one topic carries both).
        case detect
    }

    let daemon: AnnouncementDaemon
    let live: LiveContext

    public init(daemon: AnnouncementDaemon, live: LiveContext) {
        self.daemon = daemon
        self.live = live
    }

    var remote: RemoteAudio {
        RemoteAudio(settings: live.value.configuration.audioURL, cache: live.value.clipCache)
    }

    var validator: PayloadValidator {
        let configuration = live.value.configuration
        return PayloadValidator(remote: remote, maxTextCharacters: configuration.api.maxTextCharacters,
                                speech: configuration.speech, soundsDirectory: configuration.soundsDirectory)
    }

    /// The checked request in `bytes`; throws an `APIError` naming the field when anything is wrong.
    public func request(from bytes: [UInt8], format: Format, source: AnnouncementSource,
                        client: String) async throws -> AnnouncementRequest {
        var request: AnnouncementRequest
        if try isPush(bytes, format) {
            request = try await validator.request(from: try decodeJSON(PushPayload.self, from: bytes), source: source)
        } else {
            request = try await validator.request(from: try decodeJSON(NativeAnnouncement.self, from: bytes), source: source)
        }
        request.client = client
        return request
    }

    /// Fetches an `audio_url` first (so an unusable one is the sender's error, 422, not a failed
    /// row later), then deduplicates, logs and queues.
    public func submit(_ request: AnnouncementRequest) async throws -> AnnouncementDaemon.Submission {
        if case .audioURL(let url) = request.body {
            do { _ = try await remote.clip(for: url) } catch {
                throw APIError(.unprocessableContent, field: "audio_url", "\(error)")
            }
        }
        return try await daemon.submit(request)
    }

    private func isPush(_ bytes: [UInt8], _ format: Format) throws -> Bool {
        switch format {
        case .native: return false
        case .push: return true
        case .detect:
            try checkSyntax(bytes)
            let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
            return object?["message"] != nil || object?["action"] != nil
        }
    }
}

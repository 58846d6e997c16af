import Foundation
import HeraldCore

/// `POST /v1/push`: the `speak_tts` data message of mobile push backends, alone or in an FCM v1 wrapper.
public struct PushPayload: Decodable, Sendable {
    public struct Message: Decodable, Sendable {
        public struct Notification: Decodable, Sendable {
            public var title: String?
            public var body: String?
        }
        public var token: String?
        public var notification: Notification?
        public var data: [String: String]?
    }

    public var message: Message?
    public var action: String?
    public var text: String?
    public var voice: String?
    public var audioUrl: String?
    public var requestId: String?
    public var timestamp: AmountText?
    public var priority: String?
    public var lang: String?
    public var rooms: [String]?

    /// The fields as one flat speak_tts message. FCM's data values are strings: there `rooms` is
    /// a comma-separated list (`"kitchen,bedroom"`).
    var flattened: (action: String?, text: String?, voice: String?, audioURL: String?, requestID: String?,
                    priority: String?, lang: String?, timestamp: String?, rooms: [String]?) {
        if let message {
            let data = message.data ?? [:]
            let rooms = data["rooms"].map { $0.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) } }
            return (data["action"], data["text"] ?? message.notification?.body, data["voice"], data["audio_url"],
                    data["request_id"], data["priority"], data["lang"], data["timestamp"], rooms)
        }
        return (action, text, voice, audioUrl, requestId, priority, lang, timestamp?.text, rooms)
    }
}

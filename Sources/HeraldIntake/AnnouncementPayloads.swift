import Foundation

/// `POST /v1/announcements`: one of `text`, `payment`, `clip`, `audio_url`. The server decodes
/// it, and the CLI encodes it (both with snake_case keys: `JSONEncoder.api`).
public struct NativeAnnouncement: Codable, Sendable {
    /// An amount and, when the sender names it, its ISO 4217 currency (else `speech.currency`).
    public struct Payment: Codable, Sendable {
        public var amount: AmountText
        public var currency: String?

        public init(amount: AmountText, currency: String? = nil) {
            self.amount = amount
            self.currency = currency
        }
    }

    public var text: String?
    public var payment: Payment?
    public var clip: String?
    public var audioUrl: String?
    public var priority: String?
    public var lang: String?
    public var voice: String?
    public var requestId: String?
    public var chime: String?
    public var metadata: [String: String]?
    /// When the sender sent it, RFC 3339 (`2026-11-23T08:00:00Z`): a message older than its
    /// priority's max age when it arrives is logged stale, not said.
    public var sentAt: String?
    /// Room and group names (`["kitchen", "upstairs"]`, `["all"]`); none: the priority's or the house's default.
    public var rooms: [String]?

    public init(text: String? = nil, payment: Payment? = nil, clip: String? = nil, audioUrl: String? = nil,
                priority: String? = nil, lang: String? = nil, voice: String? = nil, requestId: String? = nil,
                chime: String? = nil, metadata: [String: String]? = nil, sentAt: String? = nil, rooms: [String]? = nil) {
        self.rooms = rooms
        self.text = text
        self.payment = payment
        self.clip = clip
        self.audioUrl = audioUrl
        self.priority = priority
        self.lang = lang
        self.voice = voice
        self.requestId = requestId
        self.chime = chime
        self.metadata = metadata
        self.sentAt = sentAt
    }
}

/// An amount as the client wrote it: a JSON string, or a JSON number read from its digits
/// (never through binary floating point). Encoded as a string.
public struct AmountText: Codable, Sendable {
    public var text: String

    public init(_ text: String) { self.text = text }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            text = string
        } else if let number = try? container.decode(Decimal.self) {
            text = "\(number)"
        } else {
            throw DecodingError.typeMismatch(AmountText.self, .init(codingPath: decoder.codingPath, debugDescription: "not an amount"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

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

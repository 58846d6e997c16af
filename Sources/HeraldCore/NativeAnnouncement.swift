import Foundation

/// `POST /v1/announcements` (and an MQTT announce message): one of `text`, `payment`, `clip`,
/// `audio_url`. The intake decodes it; the CLI and the fleet console encode it (snake_case keys:
/// `JSONEncoder.api`). Plain Codable, here so that a sender needs no audio library.
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

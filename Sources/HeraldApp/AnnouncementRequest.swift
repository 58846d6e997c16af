import HeraldCore

/// One thing to say, as it comes in from the CLI (later: the API, push, reminders).
public struct AnnouncementRequest: Sendable {
    public enum Body: Sendable {
        /// A sound file libsndfile decodes.
        case file(path: String)
        case text(String)
        /// An amount as typed (`25.30`), with an ISO currency code or nil for the configured one.
        case payment(amount: String, currency: String?)
        /// An http(s) URL on an allowed host, fetched, decoded and cached.
        case audioURL(String)
    }

    public var body: Body
    public var priority: Priority
    public var source: AnnouncementSource
    public var language: String?
    public var voice: String?
    /// A chime name from Sounds/chimes, a path, `none`, or nil for the priority's chime.
    public var chime: String?
    public var requestID: String?
    /// Who sent it within its source: request ids are unique per source and client.
    public var client: String

    public init(body: Body, priority: Priority = .normal, source: AnnouncementSource = .cli, client: String = "",
                language: String? = nil, voice: String? = nil, chime: String? = nil, requestID: String? = nil) {
        self.body = body
        self.priority = priority
        self.source = source
        self.language = language
        self.voice = voice
        self.chime = chime
        self.requestID = requestID
        self.client = client
    }

    var bodyKind: String {
        switch body {
        case .file: "file"
        case .text: "text"
        case .payment: "payment"
        case .audioURL: "audio_url"
        }
    }

    var bodyText: String {
        switch body {
        case .file(let path): path
        case .text(let text): text
        case .payment(let amount, let currency): currency.map { "\(amount) \($0)" } ?? amount
        case .audioURL(let url): url
        }
    }

    /// The request a logged row came from, to queue it again after a restart.
    public init?(record: AnnouncementRecord) {
        let body: Body
        switch record.bodyKind {
        case "file": body = .file(path: record.body)
        case "text": body = .text(record.body)
        case "audio_url": body = .audioURL(record.body)
        case "payment":
            let parts = record.body.split(separator: " ").map(String.init)
            body = .payment(amount: parts.first ?? "", currency: parts.count > 1 ? parts[1] : nil)
        default: return nil
        }
        self.init(body: body, priority: record.priority, source: record.source, client: record.client, language: record.language,
                  voice: record.voice, requestID: record.requestID)
    }
}

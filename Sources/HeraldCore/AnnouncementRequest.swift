import Foundation

/// One thing to say, checked, as it comes in from any source (the API, push, MQTT, reminders, the
/// CLI): what the daemon queues and logs.
public struct AnnouncementRequest: Sendable {
    public enum Body: Sendable {
        /// A sound file libsndfile decodes.
        case file(path: String)
        case text(String)
        /// An amount, parsed once where it came in (API, CLI, the log).
        case payment(Amount)
        /// An http(s) URL on an allowed host, fetched, decoded and cached when it is said (a
        /// request queued again from the log: the clip is in the cache, not in memory).
        case audioURL(String)
        /// An `audio_url` the daemon fetched and decoded when it was submitted: said from `clip`, not decoded again.
        case fetchedAudio(url: String, clip: Clip)
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
    /// The reminder this is a firing of (source `reminder`).
    public var reminder: ReminderFiring?
    /// When the sender sent it (the payload's `sent_at` or `timestamp`), if it said: its age, held
    /// against its priority's max age, counts from then rather than from its arrival (a message a
    /// broker held while the hub was off can be stale when it arrives).
    public var sentAt: Date?
    /// The `api.signing_secrets` name whose valid signature the request carried.
    public var signedBy: String?
    /// The HMAC (hex) of that signature, logged so the signature is never accepted again for
    /// another request, even after a restart.
    public var signatureMAC: String?
    /// Room and group names it goes to; nil for its priority's or the house's default rooms.
    public var rooms: [String]?
    /// The row it says again (a replay, a button's `repeat`): a payment said again is no new payment.
    public var replayOf: String?

    /// Which reminder, which occurrence, and whether it is said after its time.
    public struct ReminderFiring: Sendable, Equatable {
        public var id: String
        public var due: Date
        /// Said after the grace started running (the hub was off): logged `late` once played.
        public var late: Bool

        public init(id: String, due: Date, late: Bool) {
            self.id = id
            self.due = due
            self.late = late
        }
    }

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

    /// The kind the log records (a fetched `audio_url` is still an `audio_url`).
    public var bodyKind: BodyKind {
        switch body {
        case .file: .file
        case .text: .text
        case .payment: .payment
        case .audioURL, .fetchedAudio: .audioURL
        }
    }

    /// The body as the log records it: the path, the text, the amount, the URL.
    public var bodyText: String {
        switch body {
        case .file(let path): path
        case .text(let text): text
        case .payment(let amount): amount.description
        case .audioURL(let url), .fetchedAudio(let url, _): url
        }
    }

    /// The request a logged row came from, to queue it again after a restart: a payment from its
    /// exact amount; one logged as bare text without its currency (before the log kept amounts)
    /// in `currency`. `now` is the caller's clock (the daemon's, at requeue): a reminder firing
    /// queued longer ago than `ReminderScheduler.lateTolerance` is said late.
    public init?(record: AnnouncementRecord, currency: Currency, now: Date) {
        let body: Body
        switch record.bodyKind {
        case .file: body = .file(path: record.body)
        case .text: body = .text(record.body)
        case .audioURL: body = .audioURL(record.body)
        case .payment:
            guard let amount = record.amount ?? (try? Amount.parse(logged: record.body, fallback: currency)) else { return nil }
            body = .payment(amount)
        }
        self.init(body: body, priority: record.priority, source: record.source, client: record.client, language: record.language,
                  voice: record.voice, requestID: record.requestID)
        // A firing queued before a stop and said after the start is said after its time, as one
        // due while the hub was off: `late` (it was queued when due, so its row's time is the due time).
        let late = now.timeIntervalSince(record.queuedAt) > ReminderScheduler.lateTolerance
        reminder = record.reminderID.map { ReminderFiring(id: $0, due: record.queuedAt, late: late) }
        signedBy = record.signedBy
        rooms = record.requestedRooms
        replayOf = record.replayOf
    }
}

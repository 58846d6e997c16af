import Foundation

/// Where an announcement came from.
public enum AnnouncementSource: String, Sendable, Codable, CaseIterable {
    case cli, api, push, reminder, mqtt
    /// A button's answer or repeat (`buttons:`): the client is the button's name.
    case button
}

/// How urgent an announcement is (DESIGN.md "Priorities").
public enum Priority: String, Sendable, Codable, CaseIterable {
    case critical, high, normal, low
}

/// What an announcement or a reminder says: its `body` is the text, the file's path, the amount
/// or the URL. Stored and shown as the raw value (`body_kind`).
public enum BodyKind: String, Sendable, Codable, CaseIterable {
    case text, file, payment
    case audioURL = "audio_url"
}

/// Where the played clip came from.
public enum ClipSource: String, Sendable, Codable {
    /// `synth`: espeak-ng or the speech command; `piper`: the natural voice.
    case cache, pack, synth, piper, file, url
}

/// How an announcement ended.
public enum Outcome: String, Sendable, Codable, CaseIterable {
    case played, interrupted, suppressedMuted = "suppressed_muted", coalesced, duplicate, failed
    case droppedStale = "dropped_stale"
    /// A reminder said after its due time, within `reminders.grace` (the hub was off or away).
    case late
    /// A reminder due beyond the grace: not said.
    case missed
    /// Quiet hours, and the priority's `quiet_hours` policy is `suppress`.
    case suppressedQuiet = "suppressed_quiet"
    /// Played in some of its rooms, not in all (`rooms` says which and why).
    case partial
}

/// One row of the announcement log (DESIGN.md "Log").
public struct AnnouncementRecord: Sendable, Codable, Equatable {
    public var id: String
    public var requestID: String?
    /// Who sent it within its source (`loopback`, `token:…`); request ids are unique per source and client.
    public var client: String
    public var source: AnnouncementSource
    public var priority: Priority
    /// What kind of body: `text`, `payment`, `file`, `audio_url`.
    public var bodyKind: BodyKind
    /// The text, the file's path, the URL, or a payment's amount as text (`25.30 USD`).
    public var body: String
    /// A payment's amount, exact: the log keeps it in integer minor units beside the `body`
    /// text, and a payment queued again is read from it. Not in the API's JSON (which shows
    /// `body`); nil for other kinds, and for payments logged without a currency.
    public var amount: Amount? = nil
    public var language: String?
    public var voice: String?
    public var clipSource: ClipSource?
    public var sink: String?
    public var mutedBefore: Bool?
    public var volumeBefore: ChannelVolumes?
    public var volumePlayed: ChannelVolumes?
    public var streamsDucked: Int
    public var queuedAt: Date
    public var startedAt: Date?
    public var finishedAt: Date?
    /// From the request to the first audible sample, in milliseconds.
    public var onsetLatencyMilliseconds: Int?
    public var durationMilliseconds: Int?
    public var outcome: Outcome?
    public var error: String?
    /// The reminder this firing came from (source `reminder`).
    public var reminderID: String?
    /// The name of the `api.signing_secrets` entry whose signature the request carried; nil
    /// when it came unsigned.
    public var signedBy: String?
    /// The HMAC (hex) of the signature the request carried: the log is the record of used
    /// signatures, so a captured copy is refused after a restart too. Not in the API's JSON.
    public var signatureMAC: String? = nil
    /// The room and group names it was sent to, as given; nil for the priority's or the house's
    /// default rooms (decided when it plays, so a reload applies to what still waits).
    public var requestedRooms: [String]?
    /// One outcome per room it was played in (or meant for), once it ended; nil in a row of one
    /// room's house (no `rooms:` in the config) and in rows of earlier versions.
    public var rooms: [RoomOutcome]?
    /// The row this one says again (`POST /v1/announcements/{id}/replay`, a button's `repeat`);
    /// nil for everything sent. A payment said again is not counted in the day's total.
    public var replayOf: String?

    /// Column and JSON names, spelled out: automatic snake_case turns `requestID` into
    /// `request_id` one way and back into `requestId` the other.
    enum CodingKeys: String, CodingKey {
        case id, client, source, priority, body, language, voice, sink, outcome, error
        case requestID = "request_id", bodyKind = "body_kind", clipSource = "clip_source"
        case mutedBefore = "muted_before", volumeBefore = "volume_before", volumePlayed = "volume_played"
        case streamsDucked = "streams_ducked", queuedAt = "queued_at", startedAt = "started_at"
        case finishedAt = "finished_at", onsetLatencyMilliseconds = "onset_latency_milliseconds"
        case durationMilliseconds = "duration_milliseconds", reminderID = "reminder_id", signedBy = "signed_by"
        case requestedRooms = "requested_rooms", rooms, replayOf = "replay_of"
    }

    public init(id: String = UUID().uuidString.lowercased(), requestID: String? = nil, client: String = "",
                source: AnnouncementSource, priority: Priority, bodyKind: BodyKind, body: String,
                language: String? = nil, voice: String? = nil, queuedAt: Date) {
        self.id = id
        self.requestID = requestID
        self.client = client
        self.source = source
        self.priority = priority
        self.bodyKind = bodyKind
        self.body = body
        self.language = language
        self.voice = voice
        self.streamsDucked = 0
        self.queuedAt = queuedAt
    }
}

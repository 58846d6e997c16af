import Foundation

/// One reminder: what to say, how urgently, and when (DESIGN.md "Reminders").
public struct Reminder: Sendable, Equatable, Codable {
    /// Who owns it: the config file's reminders are the admin's, changed only there; a
    /// calendar's firings are the calendar's, changed only in it.
    /// A button's `help` makes one (`button`): a call for help, acknowledged like any reminder.
    public enum Origin: String, Sendable, Codable { case api, cli, config, calendar, button }

    public var id: String
    /// `text` or `file` (a clip from the sounds folder), as in the announcement log.
    public var bodyKind: BodyKind
    public var body: String
    public var priority: Priority
    public var language: String?
    public var voice: String?
    /// An IANA time zone identifier (`Europe/Berlin`); the schedule's times are local to it.
    public var timeZone: String
    public var schedule: ReminderSchedule
    public var repeats: ReminderRepeat?
    /// Where to POST when nobody answered or it was missed; nil: `reminders.escalate`, if any.
    public var escalate: String?
    public var origin: Origin
    public var createdAt: Date
    /// Room and group names it is said in; nil: its priority's rooms, else the house's default.
    public var rooms: [String]?

    enum CodingKeys: String, CodingKey {
        case id, body, priority, language, voice, schedule, escalate, origin, rooms
        case bodyKind = "body_kind", timeZone = "time_zone", repeats = "repeat", createdAt = "created_at"
    }

    public init(id: String = UUID().uuidString.lowercased(), bodyKind: BodyKind, body: String, priority: Priority = .normal,
                language: String? = nil, voice: String? = nil, timeZone: String, schedule: ReminderSchedule,
                repeats: ReminderRepeat? = nil, escalate: String? = nil, origin: Origin, createdAt: Date, rooms: [String]? = nil) {
        self.rooms = rooms
        self.id = id
        self.bodyKind = bodyKind
        self.body = body
        self.priority = priority
        self.language = language
        self.voice = voice
        self.timeZone = timeZone
        self.schedule = schedule
        self.repeats = repeats
        self.escalate = escalate
        self.origin = origin
        self.createdAt = createdAt
    }

    /// The zone its times are read in (checked when it was created).
    public var zone: TimeZone { TimeZone(identifier: timeZone) ?? .current }

    /// The first time it is due after `instant`.
    public func nextDue(after instant: Date) -> Date? { schedule.nextDue(after: instant, in: zone) }
}

/// Said again every `every` until acknowledged, at most `times` more times.
public struct ReminderRepeat: Sendable, Equatable, Codable {
    public var every: Duration
    public var times: Int

    public init(every: Duration, times: Int) {
        self.every = every
        self.times = times
    }

    enum CodingKeys: String, CodingKey { case every, times }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(DurationText.format(every), forKey: .every)
        try container.encode(times, forKey: .times)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .every)
        guard let every = DurationText.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: .every, in: container, debugDescription: "not a duration")
        }
        self.init(every: every, times: try container.decode(Int.self, forKey: .times))
    }
}

/// Bad reminder input, naming the field (`schedule.daily`, `time_zone`) and what to do.
public struct ReminderInputError: Error, Equatable, CustomStringConvertible {
    public var field: String
    public var message: String

    public init(_ field: String, _ message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}

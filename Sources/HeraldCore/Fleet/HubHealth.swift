import Foundation

/// The heartbeat a hub publishes, retained, on `herald/<hub>/health` (docs/fleet.md): every
/// `mqtt.health_interval` and at once when something that matters changes. The fleet console
/// reads it back with the same type, so the two never disagree on a field.
///
/// ```json
/// {"hub":"care-0042","version":"1.4.0","at":"2026-11-27T10:00:00Z","uptime_s":86400,"interval_s":60,
///  "groups":["north"],"mute_policy":"override",
///  "rooms":[{"room":"bedroom","sink":"alsa_output.usb-Speaker","present":true,"muted":false,"volume_percent":70}],
///  "queue":0,"last_played_at":"2026-11-27T09:58:12Z","outcomes_24h":{"played":41,"failed":1},"failed_1h":0,
///  "reminders":{"missed_24h":0,"waiting_ack":1,"waiting_since":"2026-11-27T09:59:00Z"},
///  "disk_free_bytes":5123456789,"last_error":null}
/// ```
public struct HubHealth: Codable, Sendable, Equatable {
    /// One room's sink as the hub sees it now (the default sink as room `default` without `rooms:`).
    public struct Room: Codable, Sendable, Equatable {
        public var room: String
        /// The sink's name; nil when the room finds none.
        public var sink: String?
        public var present: Bool
        public var muted: Bool
        /// The loudest channel, in PulseAudio percent; nil without a sink.
        public var volumePercent: Int?
        /// Its noise floor in dBFS and the gain an announcement would get now (`noise:`); nil
        /// without a microphone or before it was heard.
        public var noiseDBFS: Double?
        public var noiseGainDB: Double?

        public init(room: String, sink: String?, present: Bool, muted: Bool, volumePercent: Int?,
                    noiseDBFS: Double? = nil, noiseGainDB: Double? = nil) {
            self.room = room
            self.sink = sink
            self.present = present
            self.muted = muted
            self.volumePercent = volumePercent
            self.noiseDBFS = noiseDBFS
            self.noiseGainDB = noiseGainDB
        }

        enum CodingKeys: String, CodingKey {
            case room, sink, present, muted
            case volumePercent = "volume_percent"
            case noiseDBFS = "noise_dbfs", noiseGainDB = "noise_gain_db"
        }
    }

    /// Reminders that did not reach anyone.
    public struct Reminders: Codable, Sendable, Equatable {
        /// Reminders logged `missed` (the hub was off past their grace) in the last 24 hours.
        public var missed24h: Int
        /// Reminders said and still waiting for an acknowledgement now.
        public var waitingAck: Int
        /// Since when the longest of them waits.
        public var waitingSince: Date?

        public init(missed24h: Int = 0, waitingAck: Int = 0, waitingSince: Date? = nil) {
            self.missed24h = missed24h
            self.waitingAck = waitingAck
            self.waitingSince = waitingSince
        }

        enum CodingKeys: String, CodingKey {
            case missed24h = "missed_24h", waitingAck = "waiting_ack", waitingSince = "waiting_since"
        }
    }

    public var hub: String
    public var version: String
    /// When the hub wrote it, by its own clock.
    public var at: Date
    public var uptimeSeconds: Int
    /// How often the next one comes: the console calls a hub stale after 1.5 of these, offline after 3.
    public var intervalSeconds: Int
    public var groups: [String]
    /// What a `normal` announcement does on a muted sink (`override` unmutes, `respect` stays silent).
    public var mutePolicy: String
    public var rooms: [Room]
    /// Announcements waiting to be said.
    public var queue: Int
    public var lastPlayedAt: Date?
    /// Announcements by outcome over the last 24 hours (`played`, `failed`, `missed`, ...).
    public var outcomes24h: [String: Int]
    /// Announcements that failed in the last hour: the "failing now" signal.
    public var failed1h: Int
    public var reminders: Reminders
    /// Free bytes on the file system that holds the hub's database; nil when it cannot be read.
    public var diskFreeBytes: Int64?
    /// The last thing that went wrong, in a sentence (cut to 200 characters).
    public var lastError: String?
    /// Calendars (`calendars:`) not read for an hour or more: what they say may be out of date.
    /// Absent from a hub without calendars, or one older than them.
    public var calendarsUnread: [String]?
    /// Calls for help from a button (`help`) said and not yet acknowledged, by their reminder
    /// ids. Absent when there is none.
    public var helpCalls: [String]?

    public init(hub: String, version: String, at: Date, uptimeSeconds: Int, intervalSeconds: Int, groups: [String] = [],
                mutePolicy: String = "override", rooms: [Room] = [], queue: Int = 0, lastPlayedAt: Date? = nil,
                outcomes24h: [String: Int] = [:], failed1h: Int = 0, reminders: Reminders = Reminders(),
                diskFreeBytes: Int64? = nil, lastError: String? = nil, calendarsUnread: [String]? = nil, helpCalls: [String]? = nil) {
        self.hub = hub
        self.version = version
        self.at = at
        self.uptimeSeconds = uptimeSeconds
        self.intervalSeconds = intervalSeconds
        self.groups = groups
        self.mutePolicy = mutePolicy
        self.rooms = rooms
        self.queue = queue
        self.lastPlayedAt = lastPlayedAt
        self.outcomes24h = outcomes24h
        self.failed1h = failed1h
        self.reminders = reminders
        self.diskFreeBytes = diskFreeBytes
        self.lastError = lastError
        self.calendarsUnread = calendarsUnread
        self.helpCalls = helpCalls
    }

    enum CodingKeys: String, CodingKey {
        case hub, version, at, groups, rooms, queue, reminders
        case uptimeSeconds = "uptime_s", intervalSeconds = "interval_s", mutePolicy = "mute_policy"
        case lastPlayedAt = "last_played_at", outcomes24h = "outcomes_24h", failed1h = "failed_1h"
        case diskFreeBytes = "disk_free_bytes", lastError = "last_error", calendarsUnread = "calendars_unread"
        case helpCalls = "help_calls"
    }

    /// The most rooms a heartbeat lists, and the longest error it carries: it stays under 2 KB.
    public static let maxRooms = 8
    public static let maxErrorCharacters = 200

    /// The same heartbeat without what changes at every beat (time, uptime, free disk to the
    /// megabyte, volumes by a point or two): a hub publishes at once only when this differs.
    public var significant: HubHealth {
        var copy = self
        copy.at = Date(timeIntervalSince1970: 0)
        copy.uptimeSeconds = 0
        copy.diskFreeBytes = diskFreeBytes.map { $0 / 100_000_000 }
        copy.rooms = rooms.map { room in
            var room = room
            room.volumePercent = room.volumePercent.map { $0 / 10 }
            // A room's noise moves all day: sent with each heartbeat, never a reason for one.
            room.noiseDBFS = nil
            room.noiseGainDB = nil
            return room
        }
        copy.lastPlayedAt = nil
        copy.outcomes24h = [:]
        return copy
    }

    /// Compact JSON, ISO 8601 times, sorted keys.
    public var json: [UInt8] {
        Array((try? JSONEncoder.compact.encode(self)) ?? Data())
    }

    /// Reads a heartbeat; throws a `DecodingError` naming the field at fault.
    public static func decode(_ payload: [UInt8]) throws -> HubHealth {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(HubHealth.self, from: Data(payload))
    }
}

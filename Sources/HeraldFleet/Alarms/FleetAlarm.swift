import Foundation
import HeraldConfig
import HeraldCore

/// What an alarm of the fleet console is about.
public enum AlarmKind: String, Codable, Sendable, CaseIterable {
    /// The hub's last will or clean stop, or no heartbeat for 3 intervals, for longer than `offline_after`.
    case offline
    /// A reminder logged `missed` in the last 24 hours.
    case reminderMissed = "reminder_missed"
    /// A reminder said and not acknowledged for longer than `unacknowledged_after`.
    case reminderUnacknowledged = "reminder_unacknowledged"
    /// An announcement failed in the last hour.
    case failing = "announcements_failing"
    /// A room finds no sink (subject: the room).
    case sinkAbsent = "sink_absent"
    /// A room's sink is muted and `normal` announcements respect mute (subject: the room).
    case sinkMuted = "sink_muted"
    /// The disk of the hub's database has less free space than `low_disk`.
    case lowDisk = "low_disk"
    /// A calendar of the hub not read for an hour or more (subject: the calendar).
    case calendarUnread = "calendar_unread"
    /// A button's call for help said at the hub and not acknowledged (subject: the call's id).
    case help
}

/// One alarm's identity: at most one open alarm per key, whichever console opens it.
public struct AlarmKey: Hashable, Sendable, Comparable {
    public var hub: String
    public var kind: AlarmKind
    /// The room for a sink alarm, the calendar for a calendar alarm; empty otherwise.
    public var subject: String

    public init(hub: String, kind: AlarmKind, subject: String = "") {
        self.hub = hub
        self.kind = kind
        self.subject = subject
    }

    public static func < (a: AlarmKey, b: AlarmKey) -> Bool {
        (a.hub, a.kind.rawValue, a.subject) < (b.hub, b.kind.rawValue, b.subject)
    }
}

/// An alarm a hub's state calls for now, with the sentence the page and the webhook show.
public struct WantedAlarm: Sendable, Equatable {
    public var key: AlarmKey
    public var detail: String

    public init(key: AlarmKey, detail: String) {
        self.key = key
        self.detail = detail
    }
}

/// The alarm policy, pure: which alarms a hub's presence and last heartbeat call for, and what
/// changes between those and the alarms open now. Every console runs it over the same rows, so
/// they agree; the database's unique key decides which one opens (and announces) each alarm.
public enum AlarmRules {
    /// The alarms `hub` calls for at `now`. An offline hub keeps the alarms of its last heartbeat:
    /// nothing says their cause is gone.
    /// - Parameter heardThrough: the time up to which every console has written what it received
    ///   (`SilenceClock`): a missing heartbeat is judged there, not at `now`, as a later one may
    ///   still wait in another console. A hub that said `offline` is judged at `now`.
    public static func wanted(hub: String, presence: HubPresence, health: HubHealth?, thresholds: AlarmThresholds,
                              now: Date, heardThrough: Date? = nil) -> [WantedAlarm] {
        var wanted: [WantedAlarm] = []
        let judged = presence.status == "offline" ? now : min(now, heardThrough ?? now)
        let (state, since) = presence.state(at: judged)
        if state == .offline, let since, judged.timeIntervalSince(since) >= thresholds.offlineAfter {
            let why = presence.status == "offline" ? "said offline (its last will or a clean stop)" : "sent no heartbeat for 3 intervals"
            wanted.append(WantedAlarm(key: AlarmKey(hub: hub, kind: .offline),
                                      detail: "\(hub) \(why) at \(since.formatted(.iso8601))"))
        }
        guard let health else { return wanted }
        if health.reminders.missed24h > 0 {
            wanted.append(WantedAlarm(key: AlarmKey(hub: hub, kind: .reminderMissed),
                                      detail: "\(health.reminders.missed24h) reminder(s) missed in the last 24 hours"))
        }
        if health.reminders.waitingAck > 0, let waiting = health.reminders.waitingSince,
           now.timeIntervalSince(waiting) >= thresholds.unacknowledgedAfter {
            wanted.append(WantedAlarm(key: AlarmKey(hub: hub, kind: .reminderUnacknowledged),
                                      detail: "\(health.reminders.waitingAck) reminder(s) not acknowledged since \(waiting.formatted(.iso8601))"))
        }
        if health.failed1h > 0 {
            wanted.append(WantedAlarm(key: AlarmKey(hub: hub, kind: .failing),
                                      detail: "\(health.failed1h) announcement(s) failed in the last hour\(health.lastError.map { ": \($0)" } ?? "")"))
        }
        for room in health.rooms {
            if !room.present {
                wanted.append(WantedAlarm(key: AlarmKey(hub: hub, kind: .sinkAbsent, subject: room.room),
                                          detail: "room \(room.room) has no sink\(room.sink.map { " (\($0))" } ?? "")"))
            } else if room.muted && health.mutePolicy == "respect" {
                wanted.append(WantedAlarm(key: AlarmKey(hub: hub, kind: .sinkMuted, subject: room.room),
                                          detail: "room \(room.room)'s sink \(room.sink ?? "") is muted, and normal announcements respect mute"))
            }
        }
        for calendar in health.calendarsUnread ?? [] {
            wanted.append(WantedAlarm(key: AlarmKey(hub: hub, kind: .calendarUnread, subject: calendar),
                                      detail: "calendar \(calendar) has not been read for an hour or more: its appointments may be out of date"))
        }
        // At once, with no threshold: someone pressed for help.
        for call in health.helpCalls ?? [] {
            wanted.append(WantedAlarm(key: AlarmKey(hub: hub, kind: .help, subject: call),
                                      detail: "a call for help at \(hub) (\(call)) is not answered yet"))
        }
        if let free = health.diskFreeBytes, free < thresholds.lowDiskBytes {
            wanted.append(WantedAlarm(key: AlarmKey(hub: hub, kind: .lowDisk),
                                      detail: "\(free / 1_000_000) MB free for the database (alarm under \(thresholds.lowDiskBytes / 1_000_000) MB)"))
        }
        return wanted
    }

    /// What to open (wanted, not open) and what to close (open, no longer wanted).
    public static func changes(wanted: [WantedAlarm], open: Set<AlarmKey>) -> (open: [WantedAlarm], close: [AlarmKey]) {
        let wantedKeys = Set(wanted.map(\.key))
        return (wanted.filter { !open.contains($0.key) }, open.subtracting(wantedKeys).sorted())
    }
}

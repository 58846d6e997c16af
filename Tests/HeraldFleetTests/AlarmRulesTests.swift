import Foundation
import HeraldConfig
import HeraldCore
import HeraldFleet
import Testing

/// The fleet's policy, pure: a hub's state from its status and heartbeats, and the alarms they call for.
@Suite struct AlarmRulesTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func health(rooms: [HubHealth.Room] = [room()], mute: String = "override", failed1h: Int = 0, missed: Int = 0,
                waiting: Int = 0, waitingSince: Date? = nil, disk: Int64? = 5_000_000_000) -> HubHealth {
        HubHealth(hub: "care-1", version: "1", at: start, uptimeSeconds: 1, intervalSeconds: 60, mutePolicy: mute, rooms: rooms,
                  failed1h: failed1h, reminders: .init(missed24h: missed, waitingAck: waiting, waitingSince: waitingSince),
                  diskFreeBytes: disk, lastError: failed1h > 0 ? "the sink vanished" : nil)
    }

    static func room(_ name: String = "bedroom", present: Bool = true, muted: Bool = false) -> HubHealth.Room {
        HubHealth.Room(room: name, sink: present ? "sink_\(name)" : nil, present: present, muted: muted, volumePercent: present ? 70 : nil)
    }

    @Test func aHubIsStaleAfterOneAndAHalfIntervalsAndOfflineAfterThree() {
        let presence = HubPresence(status: "online", statusAt: start, healthAt: start, intervalSeconds: 60)
        #expect(presence.state(at: start.addingTimeInterval(89)).state == .online)
        #expect(presence.state(at: start.addingTimeInterval(90)) == (.stale, start.addingTimeInterval(90)))
        #expect(presence.state(at: start.addingTimeInterval(179)).state == .stale)
        #expect(presence.state(at: start.addingTimeInterval(180)) == (.offline, start.addingTimeInterval(180)))
    }

    @Test func itsLastWillMakesItOfflineAtOnceAndAHeartbeatWithoutStatusOnline() {
        let will = HubPresence(status: "offline", statusAt: start, healthAt: start.addingTimeInterval(-1), intervalSeconds: 60)
        #expect(will.state(at: start) == (.offline, start))
        let older = HubPresence(status: "online", statusAt: start, healthAt: nil, intervalSeconds: 60)
        #expect(older.state(at: start.addingTimeInterval(86_400)).state == .online)
        let unknown = HubPresence(status: nil, statusAt: nil, healthAt: nil, intervalSeconds: 60)
        #expect(unknown.state(at: start).state == .offline)
    }

    @Test func offlineRaisesItsAlarmOnlyAfterOfflineAfter() {
        let thresholds = AlarmThresholds(offlineAfter: 300)
        let will = HubPresence(status: "offline", statusAt: start, healthAt: start, intervalSeconds: 60)
        #expect(AlarmRules.wanted(hub: "care-1", presence: will, health: nil, thresholds: thresholds, now: start.addingTimeInterval(299)).isEmpty)
        let wanted = AlarmRules.wanted(hub: "care-1", presence: will, health: nil, thresholds: thresholds, now: start.addingTimeInterval(300))
        #expect(wanted.map(\.key) == [AlarmKey(hub: "care-1", kind: .offline)])
        #expect(wanted[0].detail.contains("last will"))
        // Silent, no will: offline from the third missed heartbeat, the alarm 5 minutes after that.
        let silent = HubPresence(status: "online", statusAt: start, healthAt: start, intervalSeconds: 60)
        #expect(AlarmRules.wanted(hub: "care-1", presence: silent, health: nil, thresholds: thresholds, now: start.addingTimeInterval(479)).isEmpty)
        #expect(AlarmRules.wanted(hub: "care-1", presence: silent, health: nil, thresholds: thresholds, now: start.addingTimeInterval(480)).count == 1)
    }

    @Test func eachCauseInAHeartbeatCallsForItsAlarm() {
        let thresholds = AlarmThresholds(offlineAfter: 300, unacknowledgedAfter: 900, lowDiskBytes: 200_000_000)
        func kinds(_ health: HubHealth, at seconds: TimeInterval = 10) -> [AlarmKey] {
            // Beating all along: its last heartbeat came just now.
            let online = HubPresence(status: "online", statusAt: start, healthAt: start.addingTimeInterval(seconds), intervalSeconds: 60)
            return AlarmRules.wanted(hub: "care-1", presence: online, health: health, thresholds: thresholds, now: start.addingTimeInterval(seconds)).map(\.key)
        }
        #expect(kinds(health()).isEmpty)
        #expect(kinds(health(missed: 1)) == [AlarmKey(hub: "care-1", kind: .reminderMissed)])
        #expect(kinds(health(waiting: 1, waitingSince: start)).isEmpty)
        #expect(kinds(health(waiting: 1, waitingSince: start), at: 900) == [AlarmKey(hub: "care-1", kind: .reminderUnacknowledged)])
        #expect(kinds(health(failed1h: 2)) == [AlarmKey(hub: "care-1", kind: .failing)])
        #expect(kinds(health(rooms: [Self.room("kitchen", present: false)])) == [AlarmKey(hub: "care-1", kind: .sinkAbsent, subject: "kitchen")])
        // Muted under override: the next announcement unmutes it, no alarm; under respect it stays silent.
        #expect(kinds(health(rooms: [Self.room(muted: true)])).isEmpty)
        #expect(kinds(health(rooms: [Self.room(muted: true)], mute: "respect")) == [AlarmKey(hub: "care-1", kind: .sinkMuted, subject: "bedroom")])
        #expect(kinds(health(disk: 100_000_000)) == [AlarmKey(hub: "care-1", kind: .lowDisk)])
        #expect(kinds(health(disk: nil)).isEmpty)
        var unread = health()
        unread.calendarsUnread = ["family"]
        #expect(kinds(unread) == [AlarmKey(hub: "care-1", kind: .calendarUnread, subject: "family")])
    }

    /// A hub older than calendars sends no `calendars_unread`: its heartbeat still reads, and calls for nothing.
    @Test func aHeartbeatWithoutCalendarsReadsAndOneWithThemReadsBack() throws {
        var beat = health()
        let old = try #require(String(bytes: beat.json, encoding: .utf8))
        #expect(!old.contains("calendars_unread"))
        #expect(try HubHealth.decode(beat.json).calendarsUnread == nil)
        beat.calendarsUnread = ["family", "agency"]
        #expect(try HubHealth.decode(beat.json).calendarsUnread == ["family", "agency"])
    }

    @Test func changesOpenWhatIsMissingAndCloseWhatIsGone() {
        let offline = AlarmKey(hub: "a", kind: .offline), muted = AlarmKey(hub: "b", kind: .sinkMuted, subject: "x")
        let disk = AlarmKey(hub: "c", kind: .lowDisk)
        let changes = AlarmRules.changes(wanted: [WantedAlarm(key: offline, detail: "o"), WantedAlarm(key: disk, detail: "d")],
                                         open: [muted, disk])
        #expect(changes.open == [WantedAlarm(key: offline, detail: "o")])
        #expect(changes.close == [muted])
    }

    @Test func aHeartbeatIsSmallAndReadsBack() throws {
        var health = health(rooms: (0..<20).map { Self.room("room-with-a-longish-name-\($0)") }, failed1h: 1)
        health.rooms = Array(health.rooms.prefix(HubHealth.maxRooms))
        health.lastError = String(repeating: "e", count: HubHealth.maxErrorCharacters)
        health.outcomes24h = ["played": 100_000, "failed": 3, "suppressed_quiet": 12, "interrupted": 4, "missed": 1, "late": 2]
        health.groups = ["north", "care-agency-west"]
        #expect(health.json.count < 2048, "\(health.json.count) bytes")
        #expect(try HubHealth.decode(health.json) == health)
        // What changes at every beat is not a change that matters.
        var later = health
        later.at = start.addingTimeInterval(60)
        later.uptimeSeconds += 60
        #expect(later.significant == health.significant)
        later.rooms[0].muted = true
        #expect(later.significant != health.significant)
    }
}

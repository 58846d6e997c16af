import Foundation
import HeraldApp
import HeraldConfig
import HeraldCore

extension HubHealth {
    /// The hub's heartbeat now, from the daemon, its log, the sound server and the reminders.
    /// Never throws: what cannot be read is left out (a rooms list with the sink absent, no disk figure).
    static func gather(settings: MQTTSettings, daemon: AnnouncementDaemon, live: LiveContext,
                       reminders: ReminderService?, calendars: CalendarService? = nil, version: String,
                       now: Date = Date()) async -> HubHealth {
        let context = live.value
        let configuration = context.configuration
        let snapshot = await daemon.snapshot()
        let report = await StatusReport.gather(context: context, sound: await daemon.soundSystem)
        var rooms: [Room]
        if configuration.configuredRooms == nil {
            let sink = report.sink
            rooms = [Room(room: "default", sink: sink?.name, present: sink != nil, muted: sink?.muted ?? false,
                          volumePercent: sink?.volumePercent.max())]
        } else {
            rooms = report.rooms.map {
                Room(room: $0.room, sink: $0.sink, present: $0.sink != nil, muted: $0.muted ?? false, volumePercent: $0.volumePercent?.max(),
                     noiseDBFS: $0.noise?.floorDBFS, noiseGainDB: $0.noise?.gainDB)
            }
        }
        rooms = Array(rooms.prefix(maxRooms))
        let store = context.store
        let dayAgo = now.addingTimeInterval(-86_400)
        let day = try? await store.stats(since: dayAgo, until: now)
        let hour = try? await store.stats(since: now.addingTimeInterval(-3600), until: now)
        let missed = (try? await store.announcements(since: dayAgo, outcome: .missed, limit: 1000))?.filter { $0.source == .reminder }.count ?? 0
        let lastFailed = (try? await store.announcements(since: dayAgo, outcome: .failed, limit: 1))?.first
        let lastPlayed = (try? await store.announcements(since: nil, outcome: .played, limit: 1))?.first
        let waiting = await reminders?.waiting() ?? []
        let unread = await calendars?.unread(for: 3600) ?? []
        let help = waiting.filter { $0.reminder.origin == .button }.map(\.reminder.id)
        let normalMute = configuration.priorities.mutePolicy(for: .normal, fallback: configuration.safeguard.mutePolicy)
        return HubHealth(
            hub: settings.hub, version: version, at: now, uptimeSeconds: snapshot.uptimeSeconds,
            intervalSeconds: max(1, Int(settings.healthInterval.inSeconds.rounded())), groups: settings.groups,
            mutePolicy: normalMute.rawValue, rooms: rooms, queue: snapshot.queueDepth.values.reduce(0, +),
            lastPlayedAt: lastPlayed.map { $0.finishedAt ?? $0.queuedAt }, outcomes24h: day?.byOutcome ?? [:],
            failed1h: hour?.byOutcome["failed"] ?? 0,
            reminders: Reminders(missed24h: missed, waitingAck: waiting.count, waitingSince: waiting.compactMap(\.waitingSince).min()),
            diskFreeBytes: freeBytes(near: configuration.databasePath),
            lastError: (lastFailed?.error ?? report.serverError ?? report.sinkError).map { String($0.prefix(maxErrorCharacters)) },
            calendarsUnread: unread.isEmpty ? nil : Array(unread.prefix(maxRooms)),
            helpCalls: help.isEmpty ? nil : Array(help.prefix(maxRooms)))
    }

    /// Free bytes for an unprivileged writer on the file system holding `path`.
    static func freeBytes(near path: String) -> Int64? {
        var stats = statvfs()
        guard statvfs((path as NSString).deletingLastPathComponent, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }
}


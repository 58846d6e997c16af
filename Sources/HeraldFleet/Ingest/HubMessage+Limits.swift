import HeraldCore

/// What the console takes from one hub message at most. A hub sends far less (a heartbeat under
/// 2 KB with at most 8 rooms, `HubHealth.maxRooms`): the limits leave room for newer hubs and stop
/// one hub from filling the database, the page every browser fetches, and the alarm webhook.
enum HubMessageLimits {
    /// The largest heartbeat or status payload read.
    static let maxPayloadBytes = 65_536
    /// The largest event payload read (an event carries no more than an announcement's outcome).
    static let maxEventBytes = 16_384
    /// The largest MQTT packet the console takes from the broker (1 MiB); the broker drops larger
    /// ones for it. Between `maxPayloadBytes` and this, a message is read, refused and counted, so
    /// an oversized hub shows on the metrics; beyond it, it never reaches the console's memory.
    static let maxPacketBytes = 1_048_576
    /// The most rooms one heartbeat may list.
    static let maxRooms = 64
    /// The most groups, and outcome kinds, one heartbeat may list.
    static let maxListed = 64
    /// Every name kept (version, group, room, sink, outcome, ids) is cut to this many characters.
    static let maxName = 128
    /// A hub's `last_error` and an event's `error` are cut to this many characters.
    static let maxError = 500

    /// The largest payload read on `kind`'s topic (`status`, `health`, `events`).
    static func maxBytes(_ kind: String) -> Int { kind == "events" ? maxEventBytes : maxPayloadBytes }
}

extension String {
    /// The first `limit` characters, with "…" in place of the rest: stored strings stay bounded.
    func clipped(_ limit: Int) -> String {
        count <= limit ? self : String(prefix(limit - 1)) + "…"
    }
}

extension HubHealth {
    /// The same heartbeat with every string and list cut to `HubMessageLimits`' bounds: what the
    /// console stores and serves.
    var clipped: HubHealth {
        var copy = self
        copy.version = version.clipped(HubMessageLimits.maxName)
        copy.groups = groups.prefix(HubMessageLimits.maxListed).map { $0.clipped(HubMessageLimits.maxName) }
        copy.mutePolicy = mutePolicy.clipped(HubMessageLimits.maxName)
        copy.rooms = rooms.map { room in
            var room = room
            room.room = room.room.clipped(HubMessageLimits.maxName)
            room.sink = room.sink?.clipped(HubMessageLimits.maxName)
            return room
        }
        copy.outcomes24h = Dictionary(outcomes24h.sorted { $0.key < $1.key }.prefix(HubMessageLimits.maxListed)
            .map { ($0.key.clipped(HubMessageLimits.maxName), $0.value) }, uniquingKeysWith: +)
        copy.lastError = lastError?.clipped(HubMessageLimits.maxError)
        return copy
    }
}

import Foundation
import HeraldCore
import Yams

extension ConfigValues {
    /// The fields a room may have.
    static let roomFields: Set<String> = ["sink", "match", "safeguard", "quiet_hours", "noise", "latency_offset"]
    /// The safeguard keys a room may override.
    static let roomSafeguardFields: Set<String> = ["min_volume", "target_volume", "max_volume", "duck_level", "mute", "lead_in"]

    /// `rooms:`, `groups:`, `defaults.rooms` and `priorities.<p>.rooms`; nil with no `rooms:`
    /// (`HeraldConfiguration.rooms` is then the one room `default` on `sink:`).
    mutating func readRooms(house: SafeguardSettings) -> RoomSettings? {
        let entries = layout.records["rooms"] ?? []
        guard !entries.isEmpty else {
            if let line = layout.lines["groups"], !(layout.namedLists["groups"] ?? []).isEmpty {
                problems.append(ConfigProblem(file: file, line: line, key: "groups", message: "groups need rooms: name the rooms first (rooms: {kitchen: {sink: NAME}})"))
            }
            // Only `default` and `all` to name: checked all the same, so a typo is not silent.
            let single = RoomSettings.single(house)
            _ = roomLists(known: single)
            if let defaults = layout.listItems["defaults.rooms"] { _ = checkNames(defaults, key: "defaults.rooms", in: single) }
            return nil
        }
        var settings = RoomSettings(rooms: [])
        var sinkOwners: [String: String] = [:]
        for entry in entries {
            guard let room = configRoom(entry.name, entry.fields, house: house) else { continue }
            if case .named(let sink) = room.sink {
                if let owner = sinkOwners[sink] {
                    report("rooms.\(room.name).sink", "'\(sink)' is already the sink of room \(owner); two rooms cannot share a sink (make one room, or a group of both)")
                    continue
                }
                sinkOwners[sink] = room.name
            }
            settings.rooms.append(room)
        }
        for group in layout.namedLists["groups"] ?? [] {
            let key = "groups.\(group.name)"
            guard Self.isRoomName(group.name), group.name != RoomSettings.allGroup else {
                report(key, "'\(group.name)' cannot name a group; use letters, digits, - and _ (all is built in)")
                continue
            }
            guard settings.room(named: group.name) == nil else {
                report(key, "'\(group.name)' is already a room; give the group another name")
                continue
            }
            settings.groups[group.name] = group.items
        }
        // Each group is judged against all of them as written, so one bad group does not make
        // another that names it look wrong; the bad ones are dropped after.
        let written = settings
        let roomNames = Set(written.rooms.map(\.name))
        let cycles = written.cycles()
        var bad: Set<String> = []
        for group in layout.namedLists["groups"] ?? [] where written.groups[group.name] != nil {
            let key = "groups.\(group.name)"
            bad.insert(group.name)
            if let unknown = group.items.first(where: { $0 != RoomSettings.allGroup && !roomNames.contains($0) && written.groups[$0] == nil }) {
                report(key, "'\(unknown)' is not a room or group; the rooms are \(written.rooms.map(\.name).joined(separator: ", "))")
            } else if group.items.contains(group.name) {
                report(key, "the group names itself; list its rooms instead")
            } else if let cycle = cycles[group.name] {
                // A long circle is named by its start: thousands of names on each of thousands of lines would be the slow part.
                let named = cycle.count <= 8 ? (cycle + [cycle[0]]).joined(separator: " -> ")
                    : (cycle.prefix(4) + ["...", cycle[cycle.count - 1], cycle[0]]).joined(separator: " -> ") + " (\(cycle.count) groups)"
                report(key, "the groups \(named) name each other in a circle; list rooms in one of them")
            } else if group.items.isEmpty {
                report(key, "names no room; list its rooms, like [kitchen, living]")
            } else {
                bad.remove(group.name)
            }
        }
        // A group naming a bad one is left out too (it was reported through that one): followed
        // back from each bad group once, through who names whom.
        var namedBy: [String: [String]] = [:]
        for (name, members) in settings.groups { for member in Set(members) { namedBy[member, default: []].append(name) } }
        var dropping = Array(bad)
        while let dropped = dropping.popLast() {
            guard settings.groups.removeValue(forKey: dropped) != nil else { continue }
            dropping += namedBy[dropped] ?? []
        }
        settings.roomsByPriority = roomLists(known: settings)
        if let defaults = layout.listItems["defaults.rooms"] {
            if checkNames(defaults, key: "defaults.rooms", in: settings) { settings.defaultRooms = defaults }
        }
        return settings
    }

    /// `priorities.<p>.rooms`, each name checked against the rooms and groups.
    private mutating func roomLists(known settings: RoomSettings) -> [Priority: [String]] {
        var result: [Priority: [String]] = [:]
        for priority in Priority.allCases {
            let key = "priorities.\(priority.rawValue).rooms"
            guard let names = layout.listItems[key] else { continue }
            if checkNames(names, key: key, in: settings) { result[priority] = names }
        }
        return result
    }

    private mutating func checkNames(_ names: [String], key: String, in settings: RoomSettings) -> Bool {
        do throws(RoomSettings.Problem) {
            _ = try settings.expand(names)
            return true
        } catch {
            report(key, error.description)
            return false
        }
    }

    /// Letters, digits, `-` and `_`: a name that goes into URLs, metrics labels and MQTT topics.
    static func isRoomName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// One entry of `rooms:`.
    private mutating func configRoom(_ name: String, _ mapping: Node.Mapping, house: SafeguardSettings) -> Room? {
        let prefix = "rooms.\(name)"
        guard Self.isRoomName(name), name != RoomSettings.allGroup else {
            report(prefix, "'\(name)' cannot name a room; use letters, digits, - and _ (all is the built-in group of every room)")
            return nil
        }
        var fields: [String: Node] = [:]
        for (keyNode, value) in mapping {
            let key = keyNode.scalar?.string ?? ""
            if Self.roomFields.contains(key) { fields[key] = value } else {
                report("\(prefix).\(key)", "unknown field; a room has \(Self.roomFields.sorted().joined(separator: ", "))")
            }
        }
        guard fields.count == mapping.count else { return nil }
        let selector: Room.SinkSelector
        switch (fields["sink"], fields["match"]) {
        case (let sink?, nil):
            guard let name = sink.scalar?.string.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
                report("\(prefix).sink", "must be one sink's name, as pactl list short sinks shows it")
                return nil
            }
            selector = .named(name)
        case (nil, let match?):
            guard let wanted = propertyMatch(match, key: "\(prefix).match", of: "sink") else { return nil }
            selector = .matching(wanted)
        case (_?, _?):
            report(prefix, "give sink or match, not both")
            return nil
        case (nil, nil):
            report(prefix, "needs sink (a sink's name, as pactl list short sinks shows it) or match (sink properties, like device.bus: usb)")
            return nil
        }
        var safeguard = house
        safeguard.sinkName = nil
        if let overrides = fields["safeguard"] {
            guard case .mapping(let entries) = overrides else {
                report("\(prefix).safeguard", "must be a section of safeguard keys (target_volume: 60%, ...)")
                return nil
            }
            guard readRoomSafeguard(entries, prefix: "\(prefix).safeguard", into: &safeguard) else { return nil }
        }
        var quietWindows: [QuietWindow]?
        if let quiet = fields["quiet_hours"] {
            let key = "\(prefix).quiet_hours"
            let texts: [String]?
            switch quiet {
            case .sequence(let items) where items.allSatisfy({ $0.scalar != nil }): texts = items.compactMap(\.scalar?.string)
            case .scalar(let one): texts = one.string.isEmpty || one.string == "never" ? [] : [one.string]
            default: texts = nil
            }
            guard let texts else {
                report(key, "must be a list of windows, like [\"21:00-07:00\"], or [] for never quiet (the house's policies apply)")
                return nil
            }
            quietWindows = []
            for text in texts {
                guard let window = QuietWindow(text) else {
                    report(key, "'\(text)' is not a window; write it like 21:00-07:00, or [] (never quiet)")
                    return nil
                }
                quietWindows?.append(window)
            }
        }
        var noise: NoiseSettings?
        if let section = fields["noise"] {
            guard let settings = roomNoise(section, prefix: "\(prefix).noise") else { return nil }
            noise = settings
        }
        var room = Room(name: name, sink: selector, safeguard: safeguard, quietWindows: quietWindows, noise: noise)
        if let offset = fields["latency_offset"] {
            let text = (offset.scalar?.string ?? "").trimmingCharacters(in: .whitespaces)
            guard let value = DurationText.parse(text, plainUnit: .milliseconds), value <= LatencyAlignment.maximumOffset else {
                report("\(prefix).latency_offset", "'\(text)' is not a delay from 0 to \(DurationText.format(LatencyAlignment.maximumOffset)); write the time from the sink to the listener that the sink does not report, like 200ms (herald doctor shows what each sink reports)")
                return nil
            }
            room.latencyOffset = value
        }
        return room
    }

    /// A room's `safeguard:` section over the house's values; false after reporting a problem.
    private mutating func readRoomSafeguard(_ entries: Node.Mapping, prefix: String, into safeguard: inout SafeguardSettings) -> Bool {
        for (keyNode, value) in entries {
            let field = keyNode.scalar?.string ?? ""
            let key = "\(prefix).\(field)"
            guard Self.roomSafeguardFields.contains(field) else {
                report(key, "not a room's safeguard key; a room may set \(Self.roomSafeguardFields.sorted().joined(separator: ", "))")
                return false
            }
            let text = (value.scalar?.string ?? "").trimmingCharacters(in: .whitespaces)
            switch field {
            case "mute":
                guard let policy = MutePolicy(rawValue: text.lowercased()) else {
                    report(key, "'\(text)' is not a mute policy; use override or respect")
                    return false
                }
                safeguard.mutePolicy = policy
            case "lead_in":
                // A policy (auto, always, never), as the house's key, or this room's length.
                if let policy = LeadInPolicy(rawValue: text.lowercased()) {
                    safeguard.leadIn = policy
                } else {
                    guard let length = leadInLength(text, key: key) else { return false }
                    // The room's own length, whatever its sink's class; played as the policy says.
                    for deviceClass in SinkDeviceClass.allCases { safeguard.leadInByClass[deviceClass] = length }
                    safeguard.leadInBySink = [:]
                }
            default:
                let range: ClosedRange<Double> = field == "duck_level" ? 0...100 : field == "min_volume" ? 0...150 : 1...150
                guard let percent = percent(text, key: key, range: range) else { return false }
                switch field {
                case "min_volume": safeguard.minVolume = Volume(percent: percent)
                case "target_volume": safeguard.targetVolume = Volume(percent: percent)
                case "max_volume": safeguard.maxVolume = Volume(percent: percent)
                default: safeguard.duckLevel = percent / 100
                }
            }
        }
        if safeguard.minVolume > safeguard.targetVolume {
            report(prefix, "min_volume \(safeguard.minVolume) is above target_volume \(safeguard.targetVolume) in this room; make min_volume <= target_volume")
            return false
        }
        if safeguard.targetVolume > safeguard.maxVolume {
            report(prefix, "target_volume \(safeguard.targetVolume) is above max_volume \(safeguard.maxVolume) in this room; make target_volume <= max_volume")
            return false
        }
        return true
    }
}

/// The rooms and groups of the house (`rooms:`, `groups:`), and where an announcement goes when it
/// names none (`defaults.rooms`, `priorities.<p>.rooms`).
///
/// A config with no `rooms:` has one room, `default`: the configured `sink:`, else the server's
/// default sink, with the house's safeguard. Every existing config behaves as it did.
public struct RoomSettings: Sendable, Equatable {
    /// The name of the one room a config without `rooms:` has.
    public static let defaultRoomName = "default"
    /// The built-in group of every room.
    public static let allGroup = "all"

    /// In the order the file gives them (the order the status and the page show).
    public var rooms: [Room]
    /// Group name -> room or group names, as written.
    public var groups: [String: [String]]
    /// Where an announcement goes when it names no rooms and its priority has no `rooms`.
    public var defaultRooms: [String]
    public var roomsByPriority: [Priority: [String]]

    public init(rooms: [Room], groups: [String: [String]] = [:], defaultRooms: [String] = [RoomSettings.allGroup],
                roomsByPriority: [Priority: [String]] = [:]) {
        self.rooms = rooms
        self.groups = groups
        self.defaultRooms = defaultRooms
        self.roomsByPriority = roomsByPriority
    }

    /// The single `default` room of a config without `rooms:`.
    public static func single(_ safeguard: SafeguardSettings) -> RoomSettings {
        RoomSettings(rooms: [Room(name: defaultRoomName, sink: safeguard.sinkName.map(Room.SinkSelector.named) ?? .serverDefault,
                                  safeguard: safeguard)])
    }

    /// Why a list of names does not name rooms.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case empty
        case unknown(String, known: [String])

        public var description: String {
            switch self {
            case .empty: "names no room; give at least one room or group, or leave it out for the default"
            case .unknown(let name, let known): "'\(name)' is not a room or group here; use one of \(known.joined(separator: ", "))"
            }
        }
    }

    /// Every room and group name a request may use, `all` first.
    public var knownNames: [String] { [Self.allGroup] + rooms.map(\.name) + groups.keys.sorted() }

    public func room(named name: String) -> Room? { rooms.first { $0.name == name } }

    /// The rooms `names` stand for, groups expanded, each once, in the house's order.
    /// - Throws: `Problem` for an empty list or a name that is neither a room nor a group.
    public func expand(_ names: [String]) throws(Problem) -> [Room] {
        guard !names.isEmpty else { throw .empty }
        var wanted: Set<String> = [], expanded: Set<String> = []
        for name in names {
            guard collect(name, into: &wanted, expanded: &expanded) else { throw .unknown(name, known: knownNames) }
        }
        return rooms.filter { wanted.contains($0.name) }
    }

    /// The rooms of an announcement: the ones it names, else its priority's, else the default.
    public func rooms(requested: [String]?, priority: Priority) throws(Problem) -> [Room] {
        try expand(requested ?? roomsByPriority[priority] ?? defaultRooms)
    }

    /// Adds the rooms `name` stands for; false when it is unknown. Each group is opened once, so
    /// groups sharing members cost no more than their sizes, and a cycle (refused by the config
    /// check) ends where it closes.
    private func collect(_ name: String, into wanted: inout Set<String>, expanded: inout Set<String>) -> Bool {
        if name == Self.allGroup {
            wanted.formUnion(rooms.map(\.name))
            return true
        }
        if rooms.contains(where: { $0.name == name }) {
            wanted.insert(name)
            return true
        }
        guard let group = groups[name] else { return false }
        guard expanded.insert(name).inserted else { return true }
        return group.allSatisfy { collect($0, into: &wanted, expanded: &expanded) }
    }

    /// The group names on a cycle through `group` (`a: [b]`, `b: [a]`), empty when there is none.
    public func cycle(through group: String) -> [String] {
        var done: Set<String> = []
        func walk(_ name: String, _ path: [String]) -> [String]? {
            if name == group, !path.isEmpty { return path }
            guard !path.contains(name), !done.contains(name), let members = groups[name] else { return nil }
            for member in members { if let found = walk(member, path + [name]) { return found } }
            // No way back to `group` through here: not worth a second look.
            done.insert(name)
            return nil
        }
        return walk(group, []) ?? []
    }
}

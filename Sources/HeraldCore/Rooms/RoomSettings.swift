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
        // Groups opened with a list of names still to open, not by recursion: a deep chain of
        // groups cannot run a task's stack out, and each group is opened once.
        let roomNames = Set(rooms.map(\.name))
        var wanted: Set<String> = [], expanded: Set<String> = []
        for name in names {
            var pending = [name]
            while let next = pending.popLast() {
                if next == Self.allGroup {
                    wanted = roomNames
                } else if roomNames.contains(next) {
                    wanted.insert(next)
                } else if let group = groups[next] {
                    if expanded.insert(next).inserted { pending += group }
                } else {
                    throw .unknown(next, known: knownNames)
                }
            }
        }
        return rooms.filter { wanted.contains($0.name) }
    }

    /// The rooms of an announcement: the ones it names, else its priority's, else the default.
    public func rooms(requested: [String]?, priority: Priority) throws(Problem) -> [Room] {
        try expand(requested ?? roomsByPriority[priority] ?? defaultRooms)
    }

    /// For each group on a circle of groups naming each other (`a: [b]`, `b: [a]`), the circle
    /// through it, starting with it (`["a", "b"]`); groups on no circle are absent.
    ///
    /// Linear in the groups and their members, whatever their shape (a chain of thousands was
    /// cubic when each group was walked on its own), and without recursion: a deep chain cannot
    /// run a task's small stack out. Circles are the strongly connected components of more than
    /// one group (Tarjan's algorithm); one circle is then found inside each.
    public func cycles() -> [String: [String]] {
        var result: [String: [String]] = [:]
        for component in Self.components(of: groups) where component.count > 1 {
            // One circle per component, found once (each member searching its own was cubic for
            // a ring of groups); each member on it is named with the circle turned to start at it,
            // any other with the component's circle.
            guard let first = component.min() else { continue }
            let circle = Self.circle(from: first, within: Set(component), groups: groups)
            var position: [String: Int] = [:]
            for (index, name) in circle.enumerated() { position[name] = index }
            for group in component {
                result[group] = position[group].map { Array(circle[$0...] + circle[..<$0]) } ?? circle
            }
        }
        return result
    }

    /// Tarjan's strongly connected components of the graph `edges` (names not in it are leaves), iteratively.
    static func components(of edges: [String: [String]]) -> [[String]] {
        var index: [String: Int] = [:], low: [String: Int] = [:]
        var stack: [String] = [], onStack: Set<String> = []
        var found: [[String]] = []
        func visit(_ name: String, into work: inout [(name: String, next: Int)]) {
            index[name] = index.count
            low[name] = index[name]
            stack.append(name)
            onStack.insert(name)
            work.append((name, 0))
        }
        for root in edges.keys.sorted() where index[root] == nil {
            var work: [(name: String, next: Int)] = []
            visit(root, into: &work)
            while let (name, next) = work.last {
                let members = edges[name] ?? []
                if next < members.count {
                    work[work.count - 1].next += 1
                    let member = members[next]
                    guard edges[member] != nil else { continue }
                    if index[member] == nil {
                        visit(member, into: &work)
                    } else if onStack.contains(member), let memberIndex = index[member] {
                        low[name] = min(low[name] ?? memberIndex, memberIndex)
                    }
                    continue
                }
                work.removeLast()
                if let parent = work.last?.name, let own = low[name] { low[parent] = min(low[parent] ?? own, own) }
                guard low[name] == index[name] else { continue }
                var component: [String] = []
                while let top = stack.popLast() {
                    onStack.remove(top)
                    component.append(top)
                    if top == name { break }
                }
                found.append(component)
            }
        }
        return found
    }

    /// The shortest circle from `group` back to it through `members` (breadth first).
    static func circle(from group: String, within members: Set<String>, groups: [String: [String]]) -> [String] {
        var cameFrom: [String: String] = [:]
        var frontier = [group], position = 0
        while position < frontier.count {
            let name = frontier[position]
            position += 1
            for member in groups[name] ?? [] where members.contains(member) {
                if member == group {
                    var path = [name]
                    while let previous = cameFrom[path[path.count - 1]] { path.append(previous) }
                    return path.reversed()
                }
                guard cameFrom[member] == nil, member != group else { continue }
                cameFrom[member] = name
                frontier.append(member)
            }
        }
        return [group]
    }
}

/// Whether the safeguards held open for the last announcement can take the next one too (DESIGN.md
/// rule 8: back-to-back announcements share one open and one close), decided from one look at the
/// server, its sinks and its default sink. Pure: the session reads, this decides, with no await
/// in between (a decision taken across awaits reads a server that has moved on).
public enum SessionFit: Sendable, Equatable {
    case reuse
    /// Close the session and open afresh.
    case reopen(Reason)

    public enum Reason: Sendable, Equatable, CustomStringConvertible {
        /// The next one goes to other rooms, or a room's sink moved (a new default sink, a speaker
        /// plugged in or out): it opens where its rooms are now.
        case roomsMoved
        /// A room the session left out can be had now: a muted one this priority unmutes, or one
        /// whose speaker is back.
        case roomCanJoin(String)
        /// A sink was muted or lowered during the last announcement: that change is the user's to
        /// keep (rule 7), and the next one must still be heard, so the safeguard applies afresh.
        case changedByUser(String)

        public var description: String {
            switch self {
            case .roomsMoved: "its rooms are elsewhere now"
            case .roomCanJoin(let room): "room \(room) can be had now"
            case .changedByUser(let sink): "sink \(sink) was muted or lowered during the last announcement"
            }
        }
    }

    /// What the decision needs to know of the open session.
    public struct Held: Sendable {
        /// Each room it was opened for and the sink it found (nil: none), in order.
        public var placed: [(room: String, sink: String?)]
        /// Each room with a safeguard open: its sink and the journal entry of the open.
        public var open: [(room: String, sink: String, entry: JournalEntry)]
        /// Each room it left out, and why.
        public var leftOut: [(room: Room, outcome: Outcome)]

        public init(placed: [(room: String, sink: String?)], open: [(room: String, sink: String, entry: JournalEntry)],
                    leftOut: [(room: Room, outcome: Outcome)]) {
            self.placed = placed
            self.open = open
            self.leftOut = leftOut
        }
    }

    /// Decides for the next announcement, to `rooms` at `priority`, from what the server showed:
    /// `sinks` and its default sink's name (nil when the look failed, or the default sink could
    /// not be read while a room follows it: nothing says anything moved, and the play will tell;
    /// closing on it would only pump the volume).
    public static func decide(_ held: Held, rooms: [Room], priority: Priority, policies: PriorityPolicies,
                              sinks: [SinkState]?, defaultSink: String?) -> SessionFit {
        // A muted room this priority unmutes needs no look at the server.
        for (room, outcome) in held.leftOut where outcome == .suppressedMuted
            && policies.mutePolicy(for: priority, fallback: room.safeguard.mutePolicy) == .override {
            return .reopen(.roomCanJoin(room.name))
        }
        guard let sinks else { return .reuse }
        let placed = rooms.map { (room: $0.name, sink: $0.sinkName(among: sinks, defaultSink: defaultSink)) }
        guard placed.elementsEqual(held.placed, by: { $0.room == $1.room && $0.sink == $1.sink }) else { return .reopen(.roomsMoved) }
        // One that failed with its sink there would fail again: reopening would only pump the others.
        for (room, outcome) in held.leftOut where outcome == .missed {
            if case .found = room.pick(from: sinks, defaultSink: defaultSink) { return .reopen(.roomCanJoin(room.name)) }
        }
        for (_, sinkName, entry) in held.open {
            // A sink not shown cannot be judged: the play will tell.
            guard let sink = sinks.first(where: { $0.name == sinkName }) else { continue }
            if !entry.isStillReady(sink) { return .reopen(.changedByUser(sinkName)) }
        }
        return .reuse
    }
}

extension Room {
    /// The sink this room plays on among `sinks`, or nil when it has none: by name (a named sink
    /// counts as there: opening it says when it is not), the server's default, or the one sink
    /// its properties match.
    public func sinkName(among sinks: [SinkState], defaultSink: String?) -> String? {
        switch sink {
        case .named(let name): return name
        case .serverDefault: return defaultSink.flatMap { $0.isEmpty ? nil : $0 }
        case .matching:
            if case .found(let found) = pick(from: sinks, defaultSink: defaultSink) { return found.name }
            return nil
        }
    }
}

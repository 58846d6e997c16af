import Foundation

/// What quiet hours make of one announcement in each of its rooms (DESIGN.md "Priorities",
/// "Rooms"): the priority's policy, applied with each room's own windows, so at night a normal
/// reminder may play in the kitchen and wait for the morning in the bedroom.
public struct QuietPlan: Sendable, Equatable {
    /// The rooms it is said in now, in the order given.
    public var now: [String] = []
    /// Of those, the ones quiet hours hold to their target volume (`play_quieter`).
    public var quieter: [String: Volume] = [:]
    /// The rooms it is said in when their quiet hours end (`defer`).
    public var deferred: [String] = []
    /// The rooms it is not said in (`suppress`): each is logged `suppressed_quiet`.
    public var suppressed: [String] = []

    public init(now: [String] = [], quieter: [String: Volume] = [:], deferred: [String] = [], suppressed: [String] = []) {
        self.now = now
        self.quieter = quieter
        self.deferred = deferred
        self.suppressed = suppressed
    }
}

extension QuietHours {
    /// These quiet hours as they hold in `room`: its own windows when it has them (`[]`: never
    /// quiet), the house's otherwise; the policies and the target volume are the house's.
    public func inRoom(_ room: Room) -> QuietHours {
        var quiet = self
        if let windows = room.quietWindows { quiet.windows = windows }
        return quiet
    }

    /// What `priority` does in each of `rooms` at `date` (critical plays everywhere).
    public func plan(for priority: Priority, in rooms: [Room], at date: Date) -> QuietPlan {
        var plan = QuietPlan()
        for room in rooms {
            switch inRoom(room).policy(for: priority, at: date) {
            case nil, .play?:
                plan.now.append(room.name)
            case .playQuieter?:
                plan.now.append(room.name)
                plan.quieter[room.name] = targetVolume
            case .defer?:
                plan.deferred.append(room.name)
            case .suppress?:
                plan.suppressed.append(room.name)
            }
        }
        return plan
    }

    /// The first moment after `date` at which the quiet hours of one of `rooms` end; nil when none
    /// of them is quiet at `date`.
    public func firstEnd(in rooms: [Room], after date: Date) -> Date? {
        rooms.compactMap { inRoom($0).end(after: date) }.min()
    }

    /// The windows that make `room` quiet, as the log and the row say them (`22:00-07:00`).
    public func windowsText(in room: Room) -> String {
        inRoom(room).windows.map(\.description).joined(separator: ", ")
    }
}

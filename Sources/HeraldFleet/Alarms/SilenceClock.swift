import Foundation

/// The time at which the silence rules (a hub `stale` or `offline` for want of a heartbeat) are
/// judged: not the sweeping console's "now", but the oldest time up to which every console still
/// running has written everything it received.
///
/// Each hub's heartbeats reach one console of the shared subscription (with hubs beating in a
/// fixed order, always the same one), and each console writes what it received in its own time.
/// After a database outage, the first console to write its backlog saw hubs whose heartbeats still
/// waited in another console as silent, and opened `offline` alarms for hubs that never went quiet.
/// Judged at the oldest console's mark, a hub is silent only if no console holds a later heartbeat.
///
/// A console that died holds the rules back for at most `holdAtMost` (the alarm keeper stretches
/// it to the broker session's expiry plus 10 s when that is longer: until then the dead console's
/// session still takes its share of the heartbeats): its mark counts while it
/// moved within that time, or while that time has not passed since this console's database came
/// back (after an outage nobody could move a mark, and a live console needs a moment to write its
/// first batch). A console that stopped cleanly holds nothing (`FleetStore.leave`).
public enum SilenceClock {
    /// How long a console that has stopped moving its mark holds the silence rules back.
    public static let holdAtMost: TimeInterval = 60

    /// A console's mark: everything it received up to `writtenThrough` is written; it last moved
    /// the mark at `movedAt` (by the sweeping console's clock).
    public struct Mark: Sendable, Equatable {
        public var writtenThrough: Date?
        public var movedAt: Date

        public init(writtenThrough: Date?, movedAt: Date) {
            self.writtenThrough = writtenThrough
            self.movedAt = movedAt
        }
    }

    /// The time to judge silence at: `now`, or the oldest `writtenThrough` of the marks that
    /// still count.
    /// - Parameters:
    ///   - marks: every console's that has not stopped cleanly, this one's included.
    ///   - databaseBackAt: when the sweeping console last failed to reach the database (or started).
    public static func judgedAt(now: Date, marks: [Mark], databaseBackAt: Date, holdAtMost: TimeInterval = holdAtMost) -> Date {
        var judged = now
        for mark in marks {
            guard let through = mark.writtenThrough, now.timeIntervalSince(max(mark.movedAt, databaseBackAt)) < holdAtMost else { continue }
            judged = min(judged, through)
        }
        return judged
    }
}

import Foundation

/// Every state an announcement is in inside the daemon, in one value: the queue's part
/// (`QueueMachine`: queued, deferred, coalesced, playing) and the intake's (a request id claimed
/// while its row is written, the row being inserted, withdrawn while it played, its turn over
/// but its outcome not yet logged, and who waits for that outcome).
///
/// Pure, as `SafeguardMachine` is: the daemon asks it and carries out what it answers, with no
/// `await` between a question and the change it leads to. Whether an announcement is still
/// pending is answered here and nowhere else.
/// - `Insert`: the handle of a row being written (the daemon's `RowInsert`), kept, never called.
/// - `Waiter`: what a request waiting for an outcome left (a continuation), handed back to be
///   answered exactly once.
public struct DaemonMachine<Item: Sendable, Insert: Sendable, Waiter: Sendable>: Sendable {
    public typealias Turns = QueueMachine<Item>

    /// The queue's decisions: what plays next, what a critical one interrupts, what waits.
    public var turns: Turns
    /// Request ids (source, client and id, as one key) accepted whose rows are being written, to
    /// their announcement ids: a copy arriving meanwhile waits for that row and is a duplicate.
    private var claims: [String: String] = [:]
    /// The rows being written now, by announcement id.
    private var inserts: [String: Insert] = [:]
    /// Entries withdrawn because their rows were not inserted: no longer pending, and one that
    /// plays is neither logged nor said again when its turn ends.
    private var withdrawn: Set<String> = []
    /// Entries whose turn ended, until their row is logged: a waiter that comes in between waits
    /// for that outcome instead of reading a row without one.
    private var finishing: Set<String> = []
    /// Requests waiting for an outcome, by announcement id, each under a token of its own so a
    /// client that hangs up can take its waiter back.
    private var waiters: [String: [UUID: Waiter]] = [:]

    public init(turns: Turns) { self.turns = turns }

    // MARK: - Intake

    /// The announcement whose row holds request `key` now, if one is being written.
    public func claimant(of key: String) -> (id: String, insert: Insert?)? {
        claims[key].map { ($0, inserts[$0]) }
    }

    /// Claims request `key` for announcement `id` while its row is written (`released` ends it).
    public mutating func claim(_ key: String, for id: String) { claims[key] = id }

    /// The row of `key` is written (or could not be): the log answers for it from now on.
    public mutating func released(_ key: String) { claims[key] = nil }

    /// The row of `id` is being written by `insert`.
    public mutating func inserting(_ id: String, by insert: Insert) { inserts[id] = insert }

    /// The write of `id`'s row is over (it is in the log, or it failed). A withdrawn entry that
    /// plays stays marked until its turn ends.
    public mutating func inserted(_ id: String) {
        inserts[id] = nil
        if turns.current?.entry.id != id { withdrawn.remove(id) }
    }

    /// The write of `id`'s row under way, if any.
    public func insert(of id: String) -> Insert? { inserts[id] }

    /// Takes back an entry whose row was not inserted: out of the queue or quiet hours' hold, or,
    /// when it plays, marked so its turn's end neither logs nor replays it. Answers whether the
    /// playback must stop now, and the waiters to answer "unknown" (none while it plays: its
    /// turn's end answers them).
    public mutating func withdraw(id: String) -> (stopPlaying: Bool, unanswered: [Waiter]) {
        withdrawn.insert(id)
        if turns.current?.entry.id == id { return (turns.withdraw(id: id), []) }
        _ = turns.withdraw(id: id)
        return (false, takeWaiters(of: id))
    }

    /// True when `id` was withdrawn (nothing may log it).
    public func isWithdrawn(_ id: String) -> Bool { withdrawn.contains(id) }

    // MARK: - Turns

    /// `id`'s turn ended; its outcome is not logged yet (`logged` ends this). True when it was
    /// withdrawn meanwhile: then it is over here, neither logged nor said again.
    public mutating func turnEnded(_ id: String) -> Bool {
        if withdrawn.remove(id) != nil {
            _ = turns.withdraw(id: id)
            return true
        }
        finishing.insert(id)
        return false
    }

    /// The turn's end is handled (logged, said again, or left for later).
    public mutating func turnSettled(_ id: String) { finishing.remove(id) }

    /// `id` has its outcome in the log (or, with no row, never will): no longer pending. Returns
    /// who waited for it, to be answered now.
    public mutating func logged(_ id: String) -> [Waiter] {
        turns.settle(id: id)
        return takeWaiters(of: id)
    }

    /// True while `id`'s outcome is still to come: its row is being written, it waits in the
    /// queue, quiet hours hold it, it plays, it is in a summary not yet logged, or its turn
    /// ended and its outcome is being written.
    public func isPending(id: String) -> Bool {
        !withdrawn.contains(id) && (turns.isPending(id: id) || finishing.contains(id) || inserts[id] != nil)
    }

    // MARK: - Waiters

    /// Registers `waiter` for `id`'s outcome under `token`; false when the daemon is stopping
    /// (answer it at once: nothing more will be logged by this run).
    public mutating func wait(for id: String, token: UUID, _ waiter: Waiter) -> Bool {
        guard !turns.stopping else { return false }
        waiters[id, default: [:]][token] = waiter
        return true
    }

    /// The waiter under `token`, taken back (its client hung up); nil when it was answered.
    public mutating func stopWaiting(for id: String, token: UUID) -> Waiter? {
        guard let waiter = waiters[id]?.removeValue(forKey: token) else { return nil }
        if waiters[id]?.isEmpty == true { waiters[id] = nil }
        return waiter
    }

    /// Who waits for `id`, taken out to be answered.
    public mutating func takeWaiters(of id: String) -> [Waiter] {
        Array((waiters.removeValue(forKey: id) ?? [:]).values)
    }

    /// How many requests wait for an outcome.
    public var waiterCount: Int { waiters.values.reduce(0) { $0 + $1.count } }

    /// The daemon is stopping: nothing new starts. Answers whether the current one must fade,
    /// and every waiter, to be answered now (what they wait for stays queued for the next start).
    public mutating func shutDown() -> (fade: Bool, unanswered: [Waiter]) {
        let fade = turns.shutDown()
        let all = waiters.values.flatMap(\.values)
        waiters = [:]
        return (fade, all)
    }
}

import Foundation

/// The daemon's queue worker as a state machine (DESIGN.md "Priorities", "Lifecycle of the
/// daemon"): what to play next, what a critical announcement interrupts, what waits for a sound
/// server or a sink, what is said again, and what a shutdown leaves queued. Pure: the daemon
/// feeds it what happened and carries out what it decides, with no `await` in between.
public struct QueueMachine<Item: Sendable>: Sendable {
    public typealias Entry = AnnouncementQueue<Item>.Entry

    /// Why the announcement playing now was stopped before its end.
    public enum StopReason: Sendable, Equatable {
        /// A critical announcement came: an interrupted payment is said again after it.
        case critical
        /// Someone skipped it (`/v1/current/skip`): logged interrupted.
        case skip
        /// The daemon stops: left unfinished, said at the next start.
        case shutdown
        /// The default sink changed under it: said again on the new one.
        case retarget
    }

    /// How a turn ended, as the daemon saw it.
    public enum TurnEnd: Sendable, Equatable {
        /// Played to the end, or stopped early (`interrupted`) for the current stop reason.
        case finished(interrupted: Bool)
        /// Bad input or an error that waiting does not fix: logged `failed`.
        case failed
        /// Muted and the priority respects it: logged `suppressed_muted`.
        case suppressed
        /// No sound server or no sink: it waits, at the front of its lane.
        case cannotStart(reason: String)
        /// The server died (or the sink went away) while it played: it is said again.
        case lost(reason: String, sinkGone: Bool)
        /// A later part of its row (said in other rooms already) found none of its rooms'
        /// speakers: it waits aside for them (`speakersBack`), within its max age, and the
        /// queue goes on without it.
        case speakersAway(reason: String)
    }

    /// What to do with the entry whose turn ended.
    public enum Disposition: Sendable, Equatable {
        /// Its outcome is final: write the row.
        case log
        /// Back at the front of its lane, to be said again with the same id; close the safeguard
        /// session first when it belongs to a sink or a connection that is no more.
        case replay(closeSession: Bool)
        /// Shutting down: the row stays unfinished and the next start says it.
        case leaveQueued
        /// Held until its rooms' speakers are back: no outcome yet.
        case heldForSpeakers
    }

    /// The next thing for the worker to do.
    public enum Step: Sendable {
        case play(Entry)
        /// Log these as too old (`failed`, or `dropped_stale` for low), then ask again.
        case expire([Entry])
        /// Nothing can play now: close the session and wait for a change, or until `until`
        /// (when the oldest waiting entry runs out of time).
        case wait(until: Date?)
        /// Entries wait for their rooms' speakers and the sound may have changed: look which have
        /// a speaker now and give those back (`speakersBack`), then ask again.
        case lookForSpeakers([Entry])
        /// Nothing to play (empty or paused): close the session and wait for a submission.
        case idle
        /// Shutting down: close the session and stop.
        case stop
    }

    public private(set) var queue: AnnouncementQueue<Item>
    /// The entry playing now, and why it is being stopped, if it is.
    public private(set) var current: (entry: Entry, stop: StopReason?)?
    public private(set) var paused = false
    public private(set) var stopping = false
    /// Why entries are not playing now (no server, no sink); nil once one plays again. Kept
    /// while a retry is under way, so an entry that expires says what it waited for.
    public private(set) var waitingFor: String?
    /// True after a turn could not start, until the daemon says the sound may be back.
    private var blocked = false
    /// Entries the daemon holds outside the queue, still pending: deferred by quiet hours, or
    /// taken into a summary whose row is being written (until each is logged `coalesced`). A
    /// waiter for one waits, and a withdrawal finds it.
    private var held: [String: (entry: Entry, deferred: Bool)] = [:]
    /// The order quiet hours deferred entries in.
    private var deferredOrder: [String] = []
    /// Later parts waiting for their rooms' speakers (`speakersAway`), in the order they came to wait.
    private var awaitingOrder: [String] = []
    /// True after the sound may have changed, until the daemon has looked for those speakers.
    private var speakersToLookFor = false

    public init(queue: AnnouncementQueue<Item>) { self.queue = queue }

    /// Queues `entry`; `interrupt` says the current announcement must fade out for it.
    public mutating func submit(_ entry: Entry) -> (admission: AnnouncementQueue<Item>.Admission, interrupt: Bool) {
        settle(id: entry.id)
        let admission = queue.enqueue(entry)
        guard admission == .accepted, let playing = current, playing.stop == nil,
              AnnouncementQueue<Item>.interrupts(entry.priority, current: playing.entry.priority) else {
            return (admission, false)
        }
        current?.stop = .critical
        return (admission, true)
    }

    /// Takes back an entry that should not have been queued (its row could not be logged): out of
    /// the queue if it waits there; true when it is the one playing and must be stopped now.
    public mutating func withdraw(id: String) -> Bool {
        if held[id] != nil {
            settle(id: id)
            return false
        }
        if queue.remove(id: id) { return false }
        return current?.entry.id == id && stopCurrent(.skip)
    }

    /// Marks the current announcement to be stopped for `reason`; false when nothing plays or it
    /// is already being stopped (the first reason stands).
    public mutating func stopCurrent(_ reason: StopReason) -> Bool {
        guard let playing = current, playing.stop == nil else { return false }
        current?.stop = reason
        return true
    }

    /// The daemon is stopping: nothing new starts; returns true when the current one must fade.
    public mutating func shutDown() -> Bool {
        stopping = true
        return stopCurrent(.shutdown)
    }

    public mutating func pause() { paused = true }
    public mutating func resume() { paused = false }

    /// A sound server or a sink may have come back (or a retry is due): waiting entries get
    /// another try.
    public mutating func soundChanged() {
        blocked = false
        speakersToLookFor = true
    }

    /// True when `id` is playing now, waits in the queue, is deferred by quiet hours, or is being
    /// said in a summary not yet logged: its outcome is still to come.
    public func isPending(id: String) -> Bool { current?.entry.id == id || queue.contains(id: id) || held[id] != nil }

    /// Holds `entry` until quiet hours end (`takeDeferred`).
    public mutating func holdDeferred(_ entry: Entry) {
        held[entry.id] = (entry, true)
        if !deferredOrder.contains(entry.id) { deferredOrder.append(entry.id) }
    }

    /// How many entries quiet hours hold.
    public var deferredCount: Int { deferredOrder.count }

    /// The entries quiet hours hold, in arrival order.
    public var deferred: [Entry] { deferredOrder.compactMap { held[$0]?.entry } }

    /// Quiet hours ended (in the rooms of those `isReady` picks): those deferred entries, in
    /// arrival order. They stay pending until each is queued again (`submit`), held again
    /// (`holdDeferred`) or logged (`settle`); the others stay deferred.
    public mutating func takeDeferred(where isReady: (Entry) -> Bool = { _ in true }) -> [Entry] {
        let entries = deferred.filter(isReady)
        for entry in entries { held[entry.id]?.deferred = false }
        deferredOrder.removeAll { id in entries.contains { $0.id == id } }
        return entries
    }

    /// The later parts waiting for their rooms' speakers, in the order they came to wait.
    public var awaitingSpeakers: [Entry] { awaitingOrder.compactMap { held[$0]?.entry } }

    /// These waiting parts have a speaker again: back to their lanes, by their time.
    public mutating func speakersBack(ids: [String]) {
        for id in ids {
            guard let entry = held[id]?.entry, awaitingOrder.contains(id) else { continue }
            putBack(entry)
        }
        blocked = false
    }

    /// `id` has its outcome logged (or is queued again): no longer held.
    public mutating func settle(id: String) {
        guard held.removeValue(forKey: id) != nil else { return }
        deferredOrder.removeAll { $0 == id }
        awaitingOrder.removeAll { $0 == id }
    }

    /// New settings for the queue (a reload).
    public mutating func update(limit: Int, policies: PriorityPolicies) {
        queue.limit = limit
        queue.policies = policies
    }

    /// Payments to say as one summary, taken out of the queue (see `AnnouncementQueue`); they stay
    /// pending until each is logged `coalesced` (`settle`) or put back (`putBack`).
    public mutating func takePaymentsToCoalesce(over threshold: Int, isPayment: (Item) -> Bool) -> [Entry] {
        let taken = queue.takePaymentsToCoalesce(over: threshold, isPayment: isPayment)
        for entry in taken { held[entry.id] = (entry, false) }
        return taken
    }

    /// Puts `entry` in its lane by its time (a summary, or payments it could not cover); no longer held.
    public mutating func putBack(_ entry: Entry) {
        settle(id: entry.id)
        queue.insertByTime(entry)
    }

    /// When `entry` passes its max age.
    private func expiry(of entry: Entry) -> Date {
        entry.queuedAt.addingTimeInterval(queue.policies[entry.priority].maxAge.inSeconds)
    }

    /// The waiting parts past their max age, no longer held (the daemon logs them).
    private mutating func takeStaleAwaiting(now: Date) -> [Entry] {
        let stale = awaitingSpeakers.filter { now > expiry(of: $0) }
        for entry in stale { settle(id: entry.id) }
        return stale
    }

    /// What to do now.
    public mutating func next(now: Date) -> Step {
        if stopping { return .stop }
        precondition(current == nil, "QueueMachine.next while an entry plays")
        let stale = queue.removeStale(now: now) + takeStaleAwaiting(now: now)
        if !stale.isEmpty { return .expire(stale.sorted { $0.queuedAt < $1.queuedAt }) }
        if speakersToLookFor, !awaitingOrder.isEmpty, !paused {
            speakersToLookFor = false
            return .lookForSpeakers(awaitingSpeakers)
        }
        // Parts waiting for speakers are looked for again at the next retry, until they expire.
        let awaitingExpiry = awaitingSpeakers.map { expiry(of: $0) }.min()
        if paused || queue.isEmpty { return awaitingExpiry.map { .wait(until: $0) } ?? .idle }
        if blocked { return .wait(until: [queue.nextExpiry(), awaitingExpiry].compactMap { $0 }.min()) }
        guard let entry = queue.next(now: now).next else { return .idle }
        current = (entry, nil)
        return .play(entry)
    }

    /// The current entry's turn ended with `end`: what to do with it. `isPayment` picks the
    /// entries said again after an emergency cut them off, whatever their priority.
    public mutating func end(_ end: TurnEnd, isPayment: (Item) -> Bool = { _ in false }) -> Disposition {
        guard let (entry, stop) = current else { return .log }
        current = nil
        switch end {
        case .cannotStart(let reason):
            queue.replayFirst(entry)
            waitingFor = reason
            blocked = true
            return .replay(closeSession: true)
        case .lost(let reason, let sinkGone):
            queue.replayFirst(entry)
            // A sink gone: the default may be another one already, so try again at once.
            if !sinkGone {
                waitingFor = reason
                blocked = true
            }
            return .replay(closeSession: true)
        case .speakersAway:
            held[entry.id] = (entry, false)
            if !awaitingOrder.contains(entry.id) { awaitingOrder.append(entry.id) }
            return .heldForSpeakers
        case .failed, .suppressed:
            return .log
        case .finished(let interrupted):
            if !interrupted { waitingFor = nil }
            switch stop {
            // Heard to the end before the stop took effect: done, never said twice.
            case .shutdown? where interrupted:
                return .leaveQueued
            case .retarget? where interrupted:
                queue.replayFirst(entry)
                return .replay(closeSession: true)
            case .critical? where interrupted && (entry.priority == .high || isPayment(entry.item)):
                // A payment cut off by an emergency is said again right after it: `normal`, as
                // most tills send them, is worth as much as `high`.
                queue.replayFirst(entry)
                return .replay(closeSession: false)
            default:
                return .log
            }
        }
    }
}

import Foundation
import HeraldConfig
import HeraldCore
import HeraldStore
import Logging
import Speech

/// The resident announcer behind `herald serve`: one queue for every source, back-to-back
/// announcements under one safeguard, critical interrupting the rest, exactly-once request ids.
///
/// With no sound server or no sink, announcements wait (each within its priority's max age) and
/// play when one is back; an announcement the server lost mid-way is said again.
public actor AnnouncementDaemon {
    /// What `submit` made of a request.
    public enum Submission: Sendable {
        case accepted(AnnouncementRecord)
        /// The source sent this request id before: the original, nothing played.
        case duplicate(AnnouncementRecord)
        /// The queue is full (only normal and low are refused).
        case refused(AnnouncementRecord, limit: Int)
    }

    /// A snapshot for `/v1/status`.
    public struct Snapshot: Sendable, Codable {
        public var current: AnnouncementRecord?
        public var currentStartedAt: Date?
        /// How far into the current announcement, against its length when known.
        public var currentElapsedMilliseconds: Int?
        /// The sink it is playing on now (a retarget or an unplugged sink says it again elsewhere):
        /// the first room's.
        public var currentSink: String?
        /// Every sink it is playing on now, one per room (rooms sharing a sink once).
        public var currentSinks: [String]?
        public var queueDepth: [String: Int]
        public var safeguardOpen: Bool
        public var uptimeSeconds: Int
        public var paused: Bool
        /// The sound server as the daemon sees it: connected, or what it waits for.
        public var soundServer: String
        /// Why queued announcements are not playing now (no server, no sink), if they are not.
        public var waitingFor: String?
        /// Held by quiet hours until they end.
        public var deferred: Int
        /// Parts of announcements waiting for a room's speaker that went away while they played.
        public var waitingForSpeakers: Int = 0
    }

    /// The one holder of the config, shared with the edges and the reloader.
    nonisolated let live: LiveContext
    /// What the next turn and job work with, built from `live` (`configChanged` builds it
    /// again; the turn or job under way keeps its own), and the generation it was built from.
    var turnKit: Turn
    private var kitGeneration: Int
    /// The config in force for the queue: the one `turnKit` was built from.
    var context: HeraldContext { turnKit.context }
    let connector: SoundConnector
    let logger: Logger
    /// A queued request with its logged row, so playing it needs no read of the log.
    struct Queued: Sendable {
        var request: AnnouncementRequest
        var record: AnnouncementRecord
        /// The rooms its next turn plays in, when quiet hours leave it for some of its rooms only
        /// (the rest are suppressed, or wait); nil for every room it goes to.
        var rooms: [String]?
        /// The rooms quiet hours hold it for after this turn: a later turn of the same row says it
        /// there when their quiet hours end.
        var laterRooms: [String] = []
        /// The rooms whose speaker went away while this turn played there (unplugged, a
        /// Bluetooth speaker gone): a later turn of the same row says it there if it is back
        /// within the max age, counted from the arrival.
        var lostRooms: [String] = []
        /// A later part waiting for speakers that went away: what is not said by its max age is
        /// `missed` in those rooms.
        var awaitsSpeakers = false
        /// Quiet hours' `play_quieter` target volume of each room it applies in, decided when it
        /// came in.
        var quietTargets: [String: Volume] = [:]
        /// A summary of payments ("five payments received, total ..."): the payments it covers are
        /// logged `coalesced`, so it is as much a payment as they were.
        var summarisesPayments = false
        /// The log its row was inserted into: its outcome is written there, whatever file a
        /// reload has moved `database.path` to since.
        let store: AnnouncementStore

        /// A payment, or a summary of some: one cut off by an emergency is said again after it.
        var isPayment: Bool {
            if case .payment = request.body { true } else { summarisesPayments }
        }
    }
    typealias Entry = AnnouncementQueue<Queued>.Entry

    /// A queue entry for `item`: its sender (source and client) takes turns with others in its
    /// lane, and a payment goes before texts of the same priority.
    static func entry(id: String, priority: Priority, queuedAt: Date, item: Queued) -> Entry {
        Entry(id: id, priority: priority, queuedAt: queuedAt, item: item,
              sender: "\(item.request.source.rawValue)/\(item.request.client)", isPayment: item.isPayment)
    }

    /// Every state an entry is in, from its claim to its logged outcome, and who waits for it:
    /// this actor only carries out what the machine decides.
    var machine: DaemonMachine<Queued, RowInsert, CheckedContinuation<AnnouncementRecord?, Never>>
    /// The steps that read, await and write (an intake's duplicate check and claim, a turn's end,
    /// a summary, quiet hours' release, a reload, what an earlier run left): one at a time, each
    /// with the config it began with.
    let jobs = SerialJobs()
    /// The playback of the current entry, to cancel (fade out) when the machine says so.
    var playing: (cancel: @Sendable () -> Void, startedAt: Date, sinks: [String], durationMilliseconds: Int?)?
    /// True until the first announcement of a safeguard session has played: only it needs the lead-in.
    var sessionIsFresh = false
    var session: SafeguardSession?
    /// The wait last logged (no server, no sink), so a wait that lasts is logged once.
    var waitLogged: String?
    var retry: Task<Void, Never>?
    var lastPlayedID: String?
    /// The id of the last payment (or summary of payments) that played: a button's `repeat_payment`.
    var lastPaymentID: String?
    /// Until when a button's `quiet` holds every room (`holdQuiet`); not kept across a restart.
    var quietHeldUntil: Date?
    let startedAt: Date
    var deferredRelease: Task<Void, Never>?
    let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    /// Signalled when the queue, the current announcement or the log changes (the admin page).
    public nonisolated let changes = ChangeFeed()

    /// The format of the stream kept corked on the target sink between announcements (speech,
    /// packs and chimes share it); nil keeps none.
    let warmFormat: AudioFormat?

    /// The time of day every decision goes by (quiet hours, max age, retries) and rows are stamped
    /// with; a test passes one it moves itself.
    let now: @Sendable () -> Date
    /// How its timers wait (`Task.sleep` unless a test passes its own).
    let sleep: @Sendable (Duration) async throws -> Void

    /// True for the CLI's `--local` run (`announceOnce`): one entry, no waiting for a sound
    /// server, nothing left by an earlier stop is queued again.
    let oneShot: Bool
    /// Set by `interrupt()` (Ctrl-C on a `--local` run): the entry is not begun, or stops now.
    var interrupted = false
    /// What the last close of the safeguard could not restore, after one more try.
    var restoreFailures: [String] = []
    /// True once `run` has queued again what an earlier stop left: a test submits after it, or
    /// its own row would be read back as left over and queued twice.
    var requeued = false
    /// The rows an earlier run left unsaid that this run took up (queued again, or logged played
    /// from the said mark), known once `requeued`; and who waits for them.
    var takenUp: [AnnouncementRecord] = []
    var takenUpWaiters: [CheckedContinuation<[AnnouncementRecord], Never>] = []

    /// - Parameters:
    ///   - now: the wall clock; a test drives quiet hours and max age with its own.
    ///   - sleep: how the daemon's timers wait (the retry while the sound is away, the end of
    ///     quiet hours); a test passes one that wakes when it moves its `now`.
    ///   - live: the config in force; after replacing it, call `configChanged()`.
    public init(live: LiveContext, connector: SoundConnector, warmFormat: AudioFormat? = nil,
                now: @escaping @Sendable () -> Date = { Date() },
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.init(live: live, connector: connector, warmFormat: warmFormat, oneShot: false, now: now, sleep: sleep)
    }

    /// A daemon on a config of its own (tests, and the CLI's one-shot run): nothing reloads it.
    public init(context: HeraldContext, connector: SoundConnector, warmFormat: AudioFormat? = nil,
                now: @escaping @Sendable () -> Date = { Date() },
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.init(live: LiveContext(context), connector: connector, warmFormat: warmFormat, oneShot: false, now: now, sleep: sleep)
    }

    init(live: LiveContext, connector: SoundConnector, warmFormat: AudioFormat?, oneShot: Bool,
         now: @escaping @Sendable () -> Date,
         sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        let (context, generation) = live.snapshot
        self.live = live
        kitGeneration = generation
        self.now = now
        self.sleep = sleep
        self.oneShot = oneShot
        startedAt = now()
        self.connector = connector
        self.warmFormat = warmFormat
        self.logger = context.logger
        turnKit = Turn(context: context, now: now)
        machine = DaemonMachine(turns: QueueMachine(queue: AnnouncementQueue(limit: context.configuration.queue.queueLimit,
                                                                             policies: context.configuration.priorities)))
    }

    /// Something changed that may let a waiting announcement play: try again.
    public func soundChanged() {
        machine.turns.soundChanged()
        wake.yield()
    }


    /// Plays announcements as they come until `stop()`; then fades out whatever plays, restores
    /// the sink and returns, leaving the rest queued for the next start.
    public func run() async {
        if !oneShot {
            do {
                try await context.store.expireRequestIDs(olderThan: context.configuration.queue.requestIDRetentionDays,
                                                            now: now())
            } catch {
                logger.warning("could not expire old request ids: \(error)")
            }
            await jobs.serially { await requeueUnfinished() }
        }
        requeued = true
        answerTakenUpWaiters()
        wake.yield()
        for await _ in wakes {
            if machine.turns.stopping { break }
            await drain()
            // Every wake follows a change that may move the target (a new connection, a sink
            // added or removed, a new default, a reload) or a playback that spent the stream.
            await keepStreamWarm()
        }
        await shutdown()
    }

    /// Keeps the connection's warm stream on the sink the next announcement will use (a payment's
    /// first room, when there are several).
    func keepStreamWarm() async {
        guard let warmFormat, let sound = try? await connector.current(),
              let room = (try? context.configuration.rooms.rooms(requested: nil, priority: .high))?.first else { return }
        do {
            guard let sinkName = try await RoomPlacement.place([room], on: sound).first?.sinkName else { return }
            try sound.keepWarm(onSink: sinkName, format: warmFormat)
        } catch {
            logger.debug("no warm stream for now: \(error)")
        }
    }

    /// `live` holds a new config: used from the next announcement on (the one playing finishes
    /// as it began), as one job, so no other step sees two configs.
    public func configChanged() async {
        await jobs.serially {
            let (context, generation) = live.snapshot
            guard generation != kitGeneration else { return }
            kitGeneration = generation
            turnKit = Turn(context: context, now: now)
            machine.turns.update(limit: context.configuration.queue.queueLimit, policies: context.configuration.priorities)
            scheduleDeferredRelease()
            logger.notice("config reloaded from \(context.configuration.file ?? "the built-in defaults")")
            wake.yield()
        }
    }

    /// Fades out what plays, restores, and ends `run`; what waits stays queued in the log.
    public func stop() {
        retry?.cancel()
        // What quiet hours hold, or waits for a speaker, stays unfinished in the log: the next
        // start decides again.
        deferredRelease?.cancel()
        let left = machine.turns.queue.count + machine.turns.deferredCount + machine.turns.awaitingSpeakers.count
            + (machine.turns.current == nil ? 0 : 1)
        if left > 0 {
            logger.notice("stopping: \(left) announcement(s) not yet said stay in the log and are said at the next start")
        }
        let (fade, unanswered) = machine.shutDown()
        if fade { playing?.cancel() }
        answerTakenUpWaiters()
        wake.finish()
        changes.finish()
        // Requests waiting for an outcome answer now, so the HTTP server can stop promptly.
        for waiter in unanswered { waiter.resume(returning: nil) }
    }

    // MARK: - The worker

    func drain() async {
        while true {
            // A paused queue lets payments pile up: they are summed when it goes on.
            if !machine.turns.paused && !machine.turns.stopping { await jobs.serially { await coalescePayments() } }
            switch machine.turns.next(now: now()) {
            case .stop, .idle:
                // Nothing waits any more (played, expired or withdrawn): a next wait is news again.
                waitLogged = nil
                await closeSession()
                return
            case .wait(let until):
                // Said once, and again only when the reason changes: the retry comes every second
                // for as long as the sound server is away.
                if let reason = machine.turns.waitingFor, reason != waitLogged {
                    logger.warning("announcements wait: \(reason)")
                    waitLogged = reason
                }
                await closeSession()
                scheduleRetry(until: until)
                return
            case .expire(let entries):
                await jobs.serially { for entry in entries { await expire(entry) } }
            case .lookForSpeakers(let entries):
                await jobs.serially { await giveBackWhereSpeakersAreBack(entries) }
            case .play(let entry):
                var entry = entry
                var (end, record) = await turn(&entry)
                if oneShot { (end, record) = failInsteadOfWaiting(end, record) }
                await jobs.serially { await turnEnded(entry, end, record) }
            }
        }
    }

    /// What the machine makes of a turn's end, carried out: logged, held for rooms whose quiet
    /// hours hold it, said again, or left for the next start.
    func turnEnded(_ entry: Entry, _ end: QueueMachine<Queued>.TurnEnd, _ record: AnnouncementRecord) async {
        machine.insert(of: entry.id)?.start()
        let disposition = machine.turns.end(end) { $0.isPayment }
        // Out of the queue before its row has its outcome: still pending for a waiter.
        let withdrawn = machine.turnEnded(entry.id)
        defer { machine.turnSettled(entry.id) }
        if waitLogged != nil, machine.turns.waitingFor == nil {
            logger.notice("announcements play again")
            waitLogged = nil
        } else if case .cannotStart = end {} else if case .lost = end {} else {
            // Failed or suppressed: the sound was reached, whatever the machine still holds.
            waitLogged = nil
        }
        if withdrawn {
            // Its row was not inserted: not said again (the machine took back a replay), not logged.
            if case .replay(closeSession: true) = disposition { await closeSession() }
            return
        }
        switch disposition {
        case .log where !entry.item.laterRooms.isEmpty || !entry.item.lostRooms.isEmpty:
            // Said (or not) in the rooms it could be said in now: the others' quiet hours hold
            // it, or their speakers went away while it played.
            await holdForLaterRooms(entry, after: record)
        case .heldForSpeakers:
            if case .speakersAway(let reason) = end {
                logger.notice("announcement \(entry.id) waits for the speakers of \((entry.item.rooms ?? []).joined(separator: ", ")) (\(reason)); the other announcements go on")
            }
        case .log:
            var record = record
            if record.outcome == .played {
                lastPlayedID = entry.id
                if entry.item.isPayment { lastPaymentID = entry.id }
            }
            if record.outcome == .played, entry.item.request.reminder?.late == true { record.outcome = .late }
            await log(record, in: entry.item.store)
        case .replay(let closeSession):
            // One that could not start waits (logged above, once); one cut off is news.
            if case .cannotStart = end {} else { logger.notice("announcement \(entry.id) will be said again (\(end))") }
            if closeSession { await self.closeSession() }
        case .leaveQueued:
            break
        }
    }

    /// Looks again in a second, or when the oldest waiting announcement expires, if sooner.
    func scheduleRetry(until expiry: Date?) {
        retry?.cancel()
        let delay = min(1.0, max(0.05, (expiry ?? .distantFuture).timeIntervalSince(now())))
        let sleep = self.sleep
        retry = Task { [weak self] in
            guard (try? await sleep(.seconds(delay))) != nil else { return }
            await self?.soundChanged()
        }
    }

    func expire(_ entry: Entry) async {
        var record = entry.item.record
        Self.markStale(&record, at: now(), priority: entry.priority, maxAge: machine.turns.queue.policies[entry.priority].maxAge.inSeconds,
                       reason: entry.item.awaitsSpeakers ? "its rooms' speakers were not back"
                           : machine.turns.waitingFor.map { "waited for \($0)" } ?? "waited for its turn")
        logger.error("announcement \(entry.id) not said: \(record.error ?? "")")
        // Too old for the rooms it was to be said in now; the rooms quiet hours hold it for still wait.
        if !entry.item.laterRooms.isEmpty { return await holdForLaterRooms(entry, after: record) }
        if let said = record.rooms, !said.isEmpty {
            // A later part: the rooms it was said in keep their outcomes; those it waited for
            // are `missed` when their speakers went away and did not come back in time.
            let waited = turnKit.rooms(for: entry.item).map(\.name).filter { room in !said.contains { $0.room == room } }
            let stale = record.outcome ?? .failed
            let rooms = said + waited.map { RoomOutcome(room: $0, sink: nil, outcome: entry.item.awaitsSpeakers ? .missed : stale, error: record.error) }
            record.rooms = turnKit.ordered(rooms) ?? rooms
            record.outcome = RoomOutcome.overall(record.rooms ?? rooms) ?? stale
        }
        await log(record, in: entry.item.store)
    }

    /// Fills in a row past its max age: a low one is dropped (`dropped_stale`), the others failed
    /// with the reason (DESIGN.md, "Priorities").
    static func markStale(_ record: inout AnnouncementRecord, at now: Date, priority: Priority, maxAge: TimeInterval,
                          reason: String) {
        record.outcome = priority == .low ? .droppedStale : .failed
        record.error = "older than its max age (\(Int(maxAge)) s for \(priority.rawValue)); \(reason)"
        record.finishedAt = now
    }

    /// Writes `record`'s outcome to `store`, the log its row was inserted into.
    func log(_ record: AnnouncementRecord, in store: AnnouncementStore) async {
        // A row is updated only after it was inserted (the entry may play while it is written),
        // and never when it was not: a withdrawn entry leaves no row and counts for nothing.
        guard await awaitInsert(of: record.id) else {
            // No row, no outcome to give: a waiter is answered as for an unknown id.
            for waiter in machine.logged(record.id) { waiter.resume(returning: nil) }
            return
        }
        do {
            try await store.record(record)
        } catch {
            logger.error("could not log announcement \(record.id): \(error)")
        }
        // Every final outcome of the daemon passes here: /metrics counts what `herald history` lists.
        HeraldMetrics.announcement(record)
        for waiter in machine.logged(record.id) { waiter.resume(returning: record) }
        changes.signal()
    }

    func shutdown() async {
        await closeSession()
        for waiter in machine.shutDown().unanswered { waiter.resume(returning: nil) }
    }
}

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
    }

    private(set) var context: HeraldContext
    /// What the next turn works with (a reload replaces it; the turn under way keeps its own).
    var turnKit: Turn
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

    /// Every decision about the queue: this actor only carries them out.
    var machine: QueueMachine<Queued>
    /// The playback of the current entry, to cancel (fade out) when the machine says so.
    var playing: (cancel: @Sendable () -> Void, startedAt: Date, sinks: [String], durationMilliseconds: Int?)?
    /// True until the first announcement of a safeguard session has played: only it needs the lead-in.
    var sessionIsFresh = false
    var session: SafeguardSession?
    /// Requests waiting for an announcement's outcome (`?wait=true`), by announcement id, each
    /// under a token of its own so a client that hangs up can take its waiter back.
    var waiters: [String: [UUID: CheckedContinuation<AnnouncementRecord?, Never>]] = [:]
    /// The inserts of rows being written now, by announcement id (`submit`).
    var inserting: [String: RowInsert] = [:]
    /// Request ids accepted whose rows are being written (source, client, id), to their
    /// announcement ids: a copy arriving meanwhile is a duplicate.
    var accepting: [String: String] = [:]
    /// Entries withdrawn while they played: their turn's end neither logs nor replays them.
    var withdrawn: Set<String> = []
    /// The wait last logged (no server, no sink), so a wait that lasts is logged once.
    var waitLogged: String?
    /// Entries whose turn ended, until their row is logged (`log` notifies their waiters): a
    /// waiter that comes in between waits for that outcome instead of reading a row without one.
    var finishing: Set<String> = []
    var retry: Task<Void, Never>?
    var lastPlayedID: String?
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
    public init(context: HeraldContext, connector: SoundConnector, warmFormat: AudioFormat? = nil,
                now: @escaping @Sendable () -> Date = { Date() },
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.init(context: context, connector: connector, warmFormat: warmFormat, oneShot: false, now: now, sleep: sleep)
    }

    init(context: HeraldContext, connector: SoundConnector, warmFormat: AudioFormat?, oneShot: Bool,
         now: @escaping @Sendable () -> Date,
         sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.context = context
        self.now = now
        self.sleep = sleep
        self.oneShot = oneShot
        startedAt = now()
        self.connector = connector
        self.warmFormat = warmFormat
        self.logger = context.logger
        turnKit = Turn(context: context, now: now)
        machine = QueueMachine(queue: AnnouncementQueue(limit: context.configuration.queue.queueLimit,
                                                        policies: context.configuration.priorities))
    }

    /// Something changed that may let a waiting announcement play: try again.
    public func soundChanged() {
        machine.soundChanged()
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
            await requeueUnfinished()
        }
        requeued = true
        answerTakenUpWaiters()
        wake.yield()
        for await _ in wakes {
            if machine.stopping { break }
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

    /// Uses a new config from the next announcement on (the one playing finishes as it began).
    public func reload(_ context: HeraldContext) {
        self.context = context
        turnKit = Turn(context: context, now: now)
        machine.update(limit: context.configuration.queue.queueLimit, policies: context.configuration.priorities)
        scheduleDeferredRelease()
        logger.notice("config reloaded from \(context.configuration.file ?? "the built-in defaults")")
        wake.yield()
    }

    /// Fades out what plays, restores, and ends `run`; what waits stays queued in the log.
    public func stop() {
        retry?.cancel()
        // What quiet hours hold stays unfinished in the log: the next start decides again.
        deferredRelease?.cancel()
        let left = machine.queue.count + machine.deferredCount + (machine.current == nil ? 0 : 1)
        if left > 0 {
            logger.notice("stopping: \(left) announcement(s) not yet said stay in the log and are said at the next start")
        }
        if machine.shutDown() { playing?.cancel() }
        answerTakenUpWaiters()
        wake.finish()
        changes.finish()
        // Requests waiting for an outcome answer now, so the HTTP server can stop promptly.
        let answered = waiters
        waiters = [:]
        for (_, list) in answered { for waiter in list.values { waiter.resume(returning: nil) } }
    }

    // MARK: - The worker

    func drain() async {
        while true {
            // A paused queue lets payments pile up: they are summed when it goes on.
            if !machine.paused && !machine.stopping { await coalescePayments() }
            switch machine.next(now: now()) {
            case .stop, .idle:
                // Nothing waits any more (played, expired or withdrawn): a next wait is news again.
                waitLogged = nil
                await closeSession()
                return
            case .wait(let until):
                // Said once, and again only when the reason changes: the retry comes every second
                // for as long as the sound server is away.
                if let reason = machine.waitingFor, reason != waitLogged {
                    logger.warning("announcements wait: \(reason)")
                    waitLogged = reason
                }
                await closeSession()
                scheduleRetry(until: until)
                return
            case .expire(let entries):
                for entry in entries { await expire(entry) }
            case .play(let entry):
                var (end, record) = await turn(entry)
                if oneShot { (end, record) = failInsteadOfWaiting(end, record) }
                inserting[entry.id]?.start()
                // Out of the machine before its row has its outcome: still pending for a waiter.
                finishing.insert(entry.id)
                defer { finishing.remove(entry.id) }
                let disposition = machine.end(end) { $0.isPayment }
                if waitLogged != nil, machine.waitingFor == nil {
                    logger.notice("announcements play again")
                    waitLogged = nil
                } else if case .cannotStart = end {} else if case .lost = end {} else {
                    // Failed or suppressed: the sound was reached, whatever the machine still holds.
                    waitLogged = nil
                }
                if withdrawn.remove(entry.id) != nil {
                    // Its row was not inserted: not said again (a replay put it back), not logged.
                    _ = machine.withdraw(id: entry.id)
                    if case .replay(closeSession: true) = disposition { await closeSession() }
                    continue
                }
                switch disposition {
                case .log where !entry.item.laterRooms.isEmpty:
                    // Said (or not) in the rooms it could be said in now: the others' quiet hours hold it.
                    await holdForLaterRooms(entry, after: record)
                case .log:
                    var record = record
                    if record.outcome == .played { lastPlayedID = entry.id }
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
        }
    }

    /// One entry's turn: open the safeguard if needed, play, and say how it ended. The row it
    /// returns is filled in for logging; whether it is logged is the machine's decision.
    func turn(_ entry: Entry) async -> (QueueMachine<Queued>.TurnEnd, AnnouncementRecord) {
        // One config for the whole turn: a reload during one of its awaits applies from the next
        // turn on, so an announcement is never rendered with one config and played with another.
        let kit = turnKit, context = kit.context
        let requested = ContinuousClock.now
        var record = entry.item.record
        let request = entry.item.request
        // The server first: an announcement waiting for one is not rendered again every second.
        let sound: any SoundConnection
        do {
            sound = try await connector.current()
        } catch {
            return (.cannotStart(reason: "\(error)"), record)
        }
        let rendered: RenderedAudio
        do {
            rendered = try await kit.renderer.render(request)
        } catch {
            kit.markFailed(&record, error)
            return (.failed, record)
        }
        if machine.current?.stop != nil || interrupted {
            // Stopped (SIGTERM, a critical one, Ctrl-C) before it began: nothing to open or undo.
            record.outcome = .interrupted
            record.finishedAt = now()
            return (.finished(interrupted: true), record)
        }
        let rooms = kit.rooms(for: entry.item)
        guard !rooms.isEmpty else {
            kit.markFailed(&record, HeraldFailure.announcementFailed("the rooms it was for are no longer in the config"))
            return (.failed, record)
        }
        let policies = context.configuration.priorities
        if let open = session, open.sound !== sound || open.quietTargets != entry.item.quietTargets { await closeSession() }
        if let open = session, case .reopen(let reason) = await open.fit(for: rooms, priority: request.priority, policies: policies) {
            // Found by the soak: a sink muted during the last one had the rest of the session
            // played into it, logged `played`.
            if case .changedByUser = reason { logger.info("applying the safeguard again: \(reason)") }
            await closeSession()
        }
        if session == nil {
            do {
                switch try await SafeguardSession.open(context: context, sound: sound, rooms: rooms, priority: request.priority,
                                                       quietTargets: entry.item.quietTargets, lockTimeout: .seconds(30)) {
                case .suppressedMuted(let sink, let rooms):
                    kit.markSuppressed(&record, sink: sink, rooms: rooms)
                    return (.suppressed, record)
                case .opened(let opened):
                    session = opened
                    sessionIsFresh = true
                }
            } catch let error as SoundSystemError where error.meansWait {
                return (.cannotStart(reason: "\(error)"), record)
            } catch {
                kit.markFailed(&record, error)
                return (.failed, record)
            }
        }
        guard let session else { return (.cannotStart(reason: "no safeguard session"), record) }
        // The restore journal is on disk (or was not needed): the row may follow.
        inserting[entry.id]?.start()
        let (playRooms, leftOut) = session.rooms(toPlayFor: request.priority, policies: policies)
        guard !playRooms.isEmpty else {
            kit.markSuppressed(&record, sink: session.before, rooms: leftOut)
            return (.suppressed, record)
        }
        // The rooms an earlier turn of this row said it in (quiet hours held it for these), or
        // quiet hours suppressed it in, keep their outcomes.
        let notPlayed = (record.rooms ?? []) + leftOut
        // Only the first announcement of a session needs the lead-in: the sinks are awake after it.
        let leadIn = sessionIsFresh ? session.leadIn() : 0
        sessionIsFresh = false
        let snapshot = record
        // Its own task, so a critical announcement can cancel it: the playback fades out.
        let task = Task { () -> (AnnouncementRecord, Turn.Playback) in
            var record = snapshot
            let (result, rooms) = await kit.play(rendered, request: request, in: session, rooms: playRooms, record: &record,
                                                 requested: requested, leadIn: leadIn, isLastPart: entry.item.laterRooms.isEmpty)
            record.rooms = kit.roomOutcomes(rooms, notPlayed: notPlayed, playback: result)
            return (record, result)
        }
        // Its length when it is a clip (a streamed sentence's is known only at its end): the page's
        // progress bar, and the soak's kills aimed at its end.
        var sinks: [String] = []
        for room in playRooms where !sinks.contains(room.sinkName) { sinks.append(room.sinkName) }
        playing = ({ task.cancel() }, now(), sinks, rendered.source.knownDurationMilliseconds)
        changes.signal()
        // A stop decided before the task existed (a critical one arriving meanwhile) applies now.
        if machine.current?.stop != nil { task.cancel() }
        let targetWatch = watchTarget(of: session, entryID: entry.id, context: context)
        let (played, playback) = await task.value
        targetWatch?.cancel()
        playing = nil
        record = played
        if case .failure(let error as SoundSystemError) = playback, error.meansWait || error.isSinkGone {
            // A stream killed while its sink is still there was stopped by someone (pavucontrol):
            // said again, it would only be killed again.
            if case .sinkGone(let gone) = error, (try? await sound.sink(named: gone)) != nil {
                kit.markFailed(&record, SoundSystemError.operationFailed("Herald's stream was stopped from outside"))
                return (.failed, record)
            }
            logger.warning("announcement \(entry.id) lost: \(error)")
            return (.lost(reason: "\(error)", sinkGone: error.isSinkGone), record)
        }
        if case .failure(let error) = playback, error is CancellationError {
            // Stopped (skip, a critical one, Ctrl-C) before its stream began: nothing was heard.
            record.outcome = .interrupted
            record.finishedAt = now()
            return (.finished(interrupted: true), record)
        }
        do {
            try await kit.finish(&record, playback: playback, rendered: rendered)
        } catch {
            kit.markFailed(&record, error)
            return (.failed, record)
        }
        return (.finished(interrupted: record.outcome == .interrupted), record)
    }

    /// With no configured sink, stops the current announcement when the server's default sink
    /// becomes another one, so it is said where the listener now listens.
    func watchTarget(of session: SafeguardSession, entryID: String, context: HeraldContext) -> Task<Void, Never>? {
        guard let follower = session.held.first(where: { $0.room.sink == .serverDefault }) else { return nil }
        let sound = session.sound
        let sinkName = follower.sinkName
        return Task { [weak self] in
            guard let events = try? await sound.events() else { return }
            for await event in events where event == .serverChanged {
                guard let now = try? await sound.serverInfo().defaultSinkName, now != sinkName,
                      !Task.isCancelled else { continue }
                await self?.stopCurrent(.retarget, id: entryID)
                return
            }
        }
    }

    func closeSession() async {
        guard let open = session else { return }
        session = nil
        let failures = await open.close()
        guard !failures.isEmpty else { return }
        guard open.sound.isConnected else {
            logger.error("restore incomplete (\(failures)); the journal is applied when the server is back")
            restoreFailures = failures
            return
        }
        // The server is still there (a request timed out): try the journal once more now rather
        // than leave the sink raised until the next announcement. The session's own context: a
        // reload since it opened may have moved the journal.
        do {
            _ = try await JournalRestorer(context: open.context).restore(using: open.sound)
        } catch {
            logger.error("restore incomplete (\(failures)), and again (\(error)); the journal stays for the next start or reconnect")
            restoreFailures = failures
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
        Self.markStale(&record, at: now(), priority: entry.priority, maxAge: machine.queue.policies[entry.priority].maxAge.inSeconds,
                       reason: machine.waitingFor.map { "waited for \($0)" } ?? "waited for its turn")
        logger.error("announcement \(entry.id) not said: \(record.error ?? "")")
        // Too old for the rooms it was to be said in now; the rooms quiet hours hold it for still wait.
        if !entry.item.laterRooms.isEmpty { return await holdForLaterRooms(entry, after: record) }
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
            machine.settle(id: record.id)
            // No row, no outcome to give: a waiter is answered as for an unknown id.
            for waiter in (waiters.removeValue(forKey: record.id) ?? [:]).values { waiter.resume(returning: nil) }
            return
        }
        do {
            try await store.record(record)
        } catch {
            logger.error("could not log announcement \(record.id): \(error)")
        }
        // Every final outcome of the daemon passes here: /metrics counts what `herald history` lists.
        HeraldMetrics.announcement(record)
        machine.settle(id: record.id)
        notify(record)
        changes.signal()
    }

    func shutdown() async {
        await closeSession()
        let answered = waiters
        waiters = [:]
        for (_, list) in answered { for waiter in list.values { waiter.resume(returning: nil) } }
    }

    /// Announcements accepted before a stop, not yet played: queued again, in order.
    ///
    /// The API listens while this runs, so a row the read returns may belong to a request
    /// accepted since the start, already queued (or still being taken in): that one is skipped,
    /// checked after each await, or it would be said twice.
    func requeueUnfinished() async {
        let rows: [AnnouncementRecord]
        let store = context.store
        do { rows = try await store.unfinished() } catch {
            logger.error("could not read the announcements accepted before the last stop; they are queued again at the next start: \(error)")
            return
        }
        var queuedAgain = 0
        let heard = SaidMark(databasePath: context.configuration.databasePath).marked()
        for row in rows {
            if row.id == heard {
                // Heard to its end just before the stop, its outcome not yet written: never said twice.
                var record = row
                record.outcome = .played
                record.finishedAt = now()
                record.error = "heard to its end before the daemon stopped; logged at the next start"
                logger.notice("announcement \(row.id) was heard to its end before the last stop: logged played, not said again")
                await log(record, in: store)
                takenUp.append(record)
                continue
            }
            guard !isTakenInSinceStart(row.id),
                  let request = AnnouncementRequest(record: row, currency: context.configuration.speech.currency, now: now()) else { continue }
            var entry = Self.entry(id: row.id, priority: row.priority, queuedAt: row.queuedAt, item: Queued(request: request, record: row, store: store))
            if let done = row.rooms, !done.isEmpty {
                // Said (or suppressed) in some rooms before the stop, quiet hours holding it for
                // the others: only those are left (none, when a reload removed them: it is over).
                let left = turnKit.rooms(for: request).map(\.name).filter { room in !done.contains { $0.room == room } }
                guard !left.isEmpty else {
                    var record = row
                    record.outcome = RoomOutcome.overall(done)
                    record.finishedAt = now()
                    await log(record, in: store)
                    takenUp.append(record)
                    continue
                }
                entry.item.rooms = left
            }
            guard !isTakenInSinceStart(row.id) else { continue }
            if case .held = await applyQuietHours(to: &entry) {
                // Deferred to the end of quiet hours, or suppressed and logged: taken up all the same.
                takenUp.append(row)
                continue
            }
            guard !isTakenInSinceStart(row.id) else { continue }
            _ = machine.submit(entry)
            takenUp.append(row)
            queuedAgain += 1
        }
        if queuedAgain > 0 { logger.notice("queued again \(queuedAgain) announcement(s) accepted before the last stop") }
    }

    /// Waits until `run` has read what an earlier run left, and returns the rows it took up (queued
    /// again, or logged played from the said mark): an intake whose sender waits for outcomes
    /// (MQTT's events) reports theirs, which the earlier run could not. Empty once stopping.
    public func rowsTakenUpFromLastRun() async -> [AnnouncementRecord] {
        if requeued || machine.stopping { return takenUp }
        return await withCheckedContinuation { takenUpWaiters.append($0) }
    }

    private func answerTakenUpWaiters() {
        let waiting = takenUpWaiters
        takenUpWaiters = []
        for waiter in waiting { waiter.resume(returning: takenUp) }
    }

    /// `id` is a request this run took in (queued, held, playing, or its row being written).
    private func isTakenInSinceStart(_ id: String) -> Bool {
        machine.isPending(id: id) || inserting[id] != nil
    }
}

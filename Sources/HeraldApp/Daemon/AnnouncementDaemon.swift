import Foundation
import HeraldConfig
import HeraldCore
import Logging
import PulseAudio
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
    private var announcer: Announcer
    let connector: SoundConnector
    let logger: Logger
    /// A queued request with its logged row, so playing it needs no read of the log.
    struct Queued: Sendable {
        var request: AnnouncementRequest
        var record: AnnouncementRecord
        /// Quiet hours' `play_quieter` target volume, decided when it came in.
        var quietTarget: Volume?
    }
    typealias Entry = AnnouncementQueue<Queued>.Entry

    /// Every decision about the queue: this actor only carries them out.
    private var machine: QueueMachine<Queued>
    /// The playback of the current entry, to cancel (fade out) when the machine says so.
    private var playing: (cancel: @Sendable () -> Void, startedAt: Date)?
    /// True until the first announcement of a safeguard session has played: only it needs the lead-in.
    private var sessionIsFresh = false
    private var session: SafeguardSession?
    /// Requests waiting for an announcement's outcome (`?wait=true`), by announcement id, each
    /// under a token of its own so a client that hangs up can take its waiter back.
    private var waiters: [String: [UUID: CheckedContinuation<AnnouncementRecord?, Never>]] = [:]
    /// The inserts of rows being written now, by announcement id (`submit`).
    private var inserting: [String: RowInsert] = [:]
    /// Request ids accepted whose rows are being written (source, client, id), to their
    /// announcement ids: a copy arriving meanwhile is a duplicate.
    private var accepting: [String: String] = [:]
    /// Entries withdrawn while they played: their turn's end neither logs nor replays them.
    private var withdrawn: Set<String> = []
    private var retry: Task<Void, Never>?
    private var lastPlayedID: String?
    private let startedAt = Date()
    private var deferredRelease: Task<Void, Never>?
    private let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    /// Signalled when the queue, the current announcement or the log changes (the admin page).
    public nonisolated let changes = ChangeFeed()

    /// The format of the stream kept corked on the target sink between announcements (speech,
    /// packs and chimes share it); nil keeps none.
    private let warmFormat: AudioFormat?

    public init(context: HeraldContext, connector: SoundConnector, warmFormat: AudioFormat? = nil) {
        self.context = context
        self.connector = connector
        self.warmFormat = warmFormat
        self.logger = context.logger
        announcer = Announcer(context: context)
        machine = QueueMachine(queue: AnnouncementQueue(limit: context.configuration.queue.queueLimit,
                                                        policies: context.configuration.priorities))
    }

    /// Something changed that may let a waiting announcement play: try again.
    public func soundChanged() {
        machine.soundChanged()
        wake.yield()
    }

    /// Validates, deduplicates, logs and queues `request`.
    ///
    /// The entry is queued while its row is being written, so the first word does not wait for
    /// a synced write; the answer does: `accepted` means the row is in the log. Any later write
    /// of that row waits for it (`log`).
    public func submit(_ request: AnnouncementRequest) async throws -> Submission {
        let record = Announcer.record(for: request)
        let requestKey = request.requestID.map { "\(request.source.rawValue)\u{1F}\(request.client)\u{1F}\($0)" }
        if let requestKey, let requestID = request.requestID {
            repeat {
                if let original = try await duplicate(of: requestKey, requestID: requestID, request) { return .duplicate(original) }
                // A copy sent at once over another connection may have claimed it while we read.
            } while accepting[requestKey] != nil
            // Claimed in the same turn as the check above, with no await between.
            accepting[requestKey] = record.id
        }
        // Alone in an idle queue it plays at once: its restore journal is synced first.
        let playsAtOnce = machine.current == nil && machine.queue.isEmpty && !machine.paused
        inserting[record.id] = RowInsert(record, into: context.store, holdAtMost: playsAtOnce ? .milliseconds(10) : nil)
        defer {
            inserting[record.id] = nil
            if let requestKey { accepting[requestKey] = nil }
        }
        let queued = try await queue(request, record)
        // The answer waits for the row: a request accepted is one that survives a crash.
        guard await awaitInsert(of: record.id, holdingIt: true) else {
            // The same id raced in from another process (the claim covers this one's
            // connections), or not even memory could take the row.
            withdraw(record.id)
            if let requestID = request.requestID,
               let original = try await context.store.announcement(source: request.source, client: request.client, requestID: requestID) {
                HeraldMetrics.duplicate(source: request.source)
                return .duplicate(original)
            }
            throw HeraldFailure.io("could not log the announcement")
        }
        return queued
    }

    /// The announcement already accepted with this request id, if any (waiting for its row when
    /// it is still being written).
    private func duplicate(of requestKey: String, requestID: String, _ request: AnnouncementRequest) async throws -> AnnouncementRecord? {
        if let claimed = accepting[requestKey] { _ = try? await inserting[claimed]?.inserted }
        guard let original = try await context.store.announcement(source: request.source, client: request.client,
                                                                  requestID: requestID) else {
            return nil
        }
        HeraldMetrics.duplicate(source: request.source)
        return original
    }

    /// Queues a new entry (or holds, drops or refuses it, logging why) and wakes the worker.
    private func queue(_ request: AnnouncementRequest, _ record: AnnouncementRecord) async throws -> Submission {
        // Aged from when it was sent: a sender's clock ahead of ours counts as sent on arrival.
        let sentAt = min(request.sentAt ?? record.queuedAt, record.queuedAt)
        let maxAge = machine.queue.policies[request.priority].maxAge.inSeconds
        if record.queuedAt.timeIntervalSince(sentAt) > maxAge {
            var stale = record
            Self.markStale(&stale, priority: request.priority, maxAge: maxAge,
                           reason: "sent \(Int(record.queuedAt.timeIntervalSince(sentAt))) s before it arrived")
            logger.error("announcement \(record.id) not said: \(stale.error ?? "")")
            await log(stale)
            return .accepted(stale)
        }
        var entry = Entry(id: record.id, priority: request.priority, queuedAt: sentAt,
                          item: Queued(request: request, record: record))
        switch await applyQuietHours(to: &entry) {
        case .queue: break
        case .held(let row): return .accepted(row)
        }
        let (admission, interrupt) = machine.submit(entry)
        if case .refusedFull(let limit) = admission {
            var failed = record
            failed.outcome = .failed
            failed.error = "queue full (\(limit) waiting); try again later"
            failed.finishedAt = Date()
            if await awaitInsert(of: failed.id) { try await context.store.record(failed) }
            HeraldMetrics.announcement(failed)
            return .refused(failed, limit: limit)
        }
        if interrupt, let current = machine.current {
            logger.notice("critical announcement interrupts \(current.entry.id)")
            playing?.cancel()
        }
        wake.yield()
        changes.signal()
        return .accepted(record)
    }

    /// Takes back an entry whose row was not inserted: out of the queue or quiet hours' hold, or,
    /// when it plays, stopped now and neither said again nor logged when its turn ends.
    private func withdraw(_ id: String) {
        logger.error("announcement \(id) withdrawn: its row was not inserted (a duplicate, or the log failed)")
        if machine.current?.entry.id == id { withdrawn.insert(id) }
        if machine.withdraw(id: id) { playing?.cancel() }
    }

    /// Waits until the row `id` is inserted, when it is being inserted now. False when it was
    /// not (a duplicate of a row logged by another process, or a failure): nothing may update it.
    /// - Parameter holdingIt: leave a held insert to its safeguard's open (the answer's wait);
    ///   any other wait starts it now: that row is being written to, not played.
    private func awaitInsert(of id: String, holdingIt: Bool = false) async -> Bool {
        guard !withdrawn.contains(id) else { return false }
        guard let insert = inserting[id] else { return true }
        if !holdingIt { insert.start() }
        do { return try await insert.inserted } catch {
            logger.error("could not log announcement \(id): \(error)")
            return false
        }
    }

    /// Waits until the announcement `id` has an outcome; nil when it is unknown.
    /// Answers nil at once when the daemon is stopping (the announcement stays queued).
    public func waitUntilFinished(id: String) async throws -> AnnouncementRecord? {
        // Registered in the same turn as the check, with no await between: a row logged
        // meanwhile cannot slip past the waiter.
        if machine.isPending(id: id) { return await waitFor(id) }
        let record = try await context.store.announcement(id: id)
        if machine.isPending(id: id) { return await waitFor(id) }
        if record?.outcome != nil || record == nil { return record }
        // Logged after our read began: read it again rather than wait for a notice already sent.
        return try await context.store.announcement(id: id)
    }

    /// Waits for the outcome of `id`; nil when the daemon stops or the waiting task is cancelled
    /// (its client hung up), and then the waiter is removed at once, not when the announcement ends.
    /// Whoever resumes a waiter takes it out of `waiters` first: it is resumed exactly once.
    private func waitFor(_ id: String) async -> AnnouncementRecord? {
        guard !machine.stopping else { return nil }
        let token = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Cancelled before the waiter exists: nothing to register, nothing to wait for.
                if Task.isCancelled { return continuation.resume(returning: nil) }
                waiters[id, default: [:]][token] = continuation
            }
        } onCancel: {
            // Cancelled after: runs once this turn of the actor (the registration) is over.
            Task { await self.stopWaiting(id, token) }
        }
    }

    private func stopWaiting(_ id: String, _ token: UUID) {
        guard let waiter = waiters[id]?.removeValue(forKey: token) else { return }
        if waiters[id]?.isEmpty == true { waiters[id] = nil }
        waiter.resume(returning: nil)
    }

    /// How many requests wait for an outcome, for tests.
    var waiterCount: Int { waiters.values.reduce(0) { $0 + $1.count } }

    /// Plays announcements as they come until `stop()`; then fades out whatever plays, restores
    /// the sink and returns, leaving the rest queued for the next start.
    public func run() async {
        do {
            try await context.store.expireRequestIDs(olderThan: context.configuration.queue.requestIDRetentionDays,
                                                        now: Date())
        } catch {
            logger.warning("could not expire old request ids: \(error)")
        }
        await requeueUnfinished()
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

    /// Keeps the connection's warm stream on the sink the next announcement will use.
    private func keepStreamWarm() async {
        guard let warmFormat, let sound = try? await connector.current() else { return }
        do {
            try sound.keepWarm(onSink: try await context.targetSinkName(on: sound), format: warmFormat)
        } catch {
            logger.debug("no warm stream for now: \(error)")
        }
    }

    /// Uses a new config from the next announcement on (the one playing finishes as it began).
    public func reload(_ context: HeraldContext) {
        self.context = context
        announcer = Announcer(context: context)
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
        if machine.shutDown() { playing?.cancel() }
        wake.finish()
        changes.finish()
        // Requests waiting for an outcome answer now, so the HTTP server can stop promptly.
        let answered = waiters
        waiters = [:]
        for (_, list) in answered { for waiter in list.values { waiter.resume(returning: nil) } }
    }

    public func snapshot() async -> Snapshot {
        let sound: String = switch await connector.state {
        case .connecting: "connecting"
        case .connected(let server): "connected to \(server)"
        case .waiting(let reason, _): "waiting for a sound server: \(reason)"
        }
        return Snapshot(current: machine.current?.entry.item.record, currentStartedAt: playing?.startedAt,
                        currentElapsedMilliseconds: playing.map { Int(Date().timeIntervalSince($0.startedAt) * 1000) },
                        queueDepth: Dictionary(uniqueKeysWithValues: machine.queue.depth.map { ($0.key.rawValue, $0.value) }),
                        safeguardOpen: session != nil, uptimeSeconds: Int(Date().timeIntervalSince(startedAt)),
                        paused: machine.paused, soundServer: sound, waitingFor: machine.waitingFor,
                        deferred: machine.deferredCount)
    }

    /// Stops the current announcement (fading it) and moves on; false when nothing plays.
    public func skipCurrent() -> Bool {
        guard machine.stopCurrent(.skip) else { return false }
        playing?.cancel()
        return true
    }

    /// Pauses the announcement playing now (the sink stays safeguarded); false when none plays.
    public func pauseCurrent() -> Bool {
        guard playing != nil, let session else { return false }
        return session.sound.setPlaybackPaused(true)
    }

    /// Resumes a paused announcement where it stopped.
    public func resumeCurrent() -> Bool {
        guard playing != nil, let session else { return false }
        return session.sound.setPlaybackPaused(false)
    }

    /// Holds the queue after the current announcement; `resume()` goes on.
    public func pause() {
        machine.pause()
        changes.signal()
    }

    public func resume() {
        machine.resume()
        wake.yield()
        changes.signal()
    }

    /// The daemon's live connection, for status reports; nil while it waits for a server.
    public var soundSystem: (any SoundSystem)? { get async { try? await connector.current() } }

    /// The id of the last announcement that played, for replay-last.
    public var lastPlayed: String? { lastPlayedID }

    /// Stops entry `id` if it is still the one playing (a late watcher must not stop the next).
    private func stopCurrent(_ reason: QueueMachine<Queued>.StopReason, id: String) {
        guard machine.current?.entry.id == id else { return }
        if machine.stopCurrent(reason) { playing?.cancel() }
    }

    // MARK: - Quiet hours (the decisions are in AnnouncementDaemon+QuietHours.swift)

    func holdDeferred(_ entry: Entry) {
        machine.holdDeferred(entry)
        scheduleDeferredRelease()
    }

    func takeDeferred() -> [Entry] { machine.takeDeferred() }

    /// Queues an entry released from quiet hours; a full queue logs it `failed`.
    func enqueue(_ entry: Entry) async {
        let (admission, interrupt) = machine.submit(entry)
        if interrupt { playing?.cancel() }
        if case .refusedFull(let limit) = admission {
            var record = entry.item.record
            record.outcome = .failed
            record.error = "queue full (\(limit) waiting) when quiet hours ended"
            record.finishedAt = Date()
            await log(record)
        }
        wake.yield()
    }

    /// Wakes when the quiet hours holding deferred entries end (again after a reload).
    func scheduleDeferredRelease() {
        deferredRelease?.cancel()
        guard machine.deferredCount > 0, !machine.stopping else { return }
        let end = context.configuration.quietHours.end(after: Date()) ?? Date()
        deferredRelease = Task { [weak self] in
            let delay = max(0, end.timeIntervalSinceNow) + 0.01
            guard (try? await Task.sleep(for: .seconds(delay))) != nil else { return }
            await self?.releaseDeferred()
        }
    }

    // MARK: - The worker

    private func drain() async {
        while true {
            // A paused queue lets payments pile up: they are summed when it goes on.
            if !machine.paused && !machine.stopping { await coalescePayments() }
            switch machine.next(now: Date()) {
            case .stop, .idle:
                await closeSession()
                return
            case .wait(let until):
                if let reason = machine.waitingFor { logger.warning("announcements wait: \(reason)") }
                await closeSession()
                scheduleRetry(until: until)
                return
            case .expire(let entries):
                for entry in entries { await expire(entry) }
            case .play(let entry):
                let (end, record) = await turn(entry)
                inserting[entry.id]?.start()
                let disposition = machine.end(end)
                if withdrawn.remove(entry.id) != nil {
                    // Its row was not inserted: not said again (a replay put it back), not logged.
                    _ = machine.withdraw(id: entry.id)
                    if case .replay(closeSession: true) = disposition { await closeSession() }
                    continue
                }
                switch disposition {
                case .log:
                    var record = record
                    if record.outcome == .played { lastPlayedID = entry.id }
                    if record.outcome == .played, entry.item.request.reminder?.late == true { record.outcome = .late }
                    await log(record)
                case .replay(let closeSession):
                    logger.notice("announcement \(entry.id) will be said again (\(end))")
                    if closeSession { await self.closeSession() }
                case .leaveQueued:
                    break
                }
            }
        }
    }

    /// One entry's turn: open the safeguard if needed, play, and say how it ended. The row it
    /// returns is filled in for logging; whether it is logged is the machine's decision.
    private func turn(_ entry: Entry) async -> (QueueMachine<Queued>.TurnEnd, AnnouncementRecord) {
        // One config for the whole turn: a reload during one of its awaits applies from the next
        // turn on, so an announcement is never rendered with one config and played with another.
        let context = self.context, announcer = self.announcer
        let requested = ContinuousClock.now
        var record = entry.item.record
        let request = entry.item.request
        // The server first: an announcement waiting for one is not rendered again every second.
        let sound: PulseConnection
        do {
            sound = try await connector.current()
        } catch {
            return (.cannotStart(reason: "\(error)"), record)
        }
        let rendered: RenderedAudio
        do {
            rendered = try await announcer.render(request)
        } catch {
            announcer.markFailed(&record, error)
            return (.failed, record)
        }
        if machine.current?.stop != nil {
            // Stopped (SIGTERM, a critical one) before it began: nothing to open or undo.
            record.outcome = .interrupted
            record.finishedAt = Date()
            return (.finished(interrupted: true), record)
        }
        if let open = session, open.sound !== sound || open.quietTarget != entry.item.quietTarget { await closeSession() }
        if let open = session, context.configuration.safeguard.sinkName == nil,
           let target = try? await context.targetSinkName(on: sound), target != open.sinkName {
            // The default sink changed between two announcements: the next opens on the new one.
            await closeSession()
        }
        if session == nil {
            do {
                switch try await SafeguardSession.open(context: context, sound: sound, priority: request.priority,
                                                       quietTarget: entry.item.quietTarget, lockTimeout: .seconds(30)) {
                case .suppressedMuted(let sink):
                    Announcer.markSuppressed(&record, sink: sink)
                    return (.suppressed, record)
                case .opened(let opened):
                    session = opened
                    sessionIsFresh = true
                }
            } catch let error as SoundSystemError where error.meansWait {
                return (.cannotStart(reason: "\(error)"), record)
            } catch {
                announcer.markFailed(&record, error)
                return (.failed, record)
            }
        }
        guard let session else { return (.cannotStart(reason: "no safeguard session"), record) }
        // The restore journal is on disk (or was not needed): the row may follow.
        inserting[entry.id]?.start()
        // A session opened for a priority that overrides the mute does not carry a `respect` one.
        let mute = context.configuration.priorities.mutePolicy(for: request.priority,
                                                               fallback: context.configuration.safeguard.mutePolicy)
        if session.before.muted && mute == .respect {
            Announcer.markSuppressed(&record, sink: session.before)
            return (.suppressed, record)
        }
        // Only the first announcement of a session needs the lead-in: the sink is awake after it.
        let leadIn = sessionIsFresh ? session.leadIn(context.configuration.safeguard) : 0
        sessionIsFresh = false
        let snapshot = record
        // Its own task, so a critical announcement can cancel it: the playback fades out.
        let task = Task { [announcer] () -> (AnnouncementRecord, Result<(PlaybackReport, prefixMilliseconds: Int, requestToPlay: Int), any Error>) in
            var record = snapshot
            let result = await announcer.play(rendered, request: request, in: session, record: &record,
                                              requested: requested, leadIn: leadIn)
            return (record, result)
        }
        playing = ({ task.cancel() }, Date())
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
            if error.isSinkGone, (try? await sound.sink(named: session.sinkName)) != nil {
                announcer.markFailed(&record, SoundSystemError.operationFailed("Herald's stream was stopped from outside"))
                return (.failed, record)
            }
            logger.warning("announcement \(entry.id) lost: \(error)")
            return (.lost(reason: "\(error)", sinkGone: error.isSinkGone), record)
        }
        do {
            try await announcer.finish(&record, playback: playback, rendered: rendered)
        } catch {
            announcer.markFailed(&record, error)
            return (.failed, record)
        }
        return (.finished(interrupted: record.outcome == .interrupted), record)
    }

    /// With no configured sink, stops the current announcement when the server's default sink
    /// becomes another one, so it is said where the listener now listens.
    private func watchTarget(of session: SafeguardSession, entryID: String, context: HeraldContext) -> Task<Void, Never>? {
        guard context.configuration.safeguard.sinkName == nil else { return nil }
        let sound = session.sound
        let sinkName = session.sinkName
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

    private func closeSession() async {
        guard let open = session else { return }
        session = nil
        guard let failures = await open.close()?.failures, !failures.isEmpty else { return }
        guard open.sound.isConnected else {
            logger.error("restore incomplete (\(failures)); the journal is applied when the server is back")
            return
        }
        // The server is still there (a request timed out): try the journal once more now rather
        // than leave the sink raised until the next announcement.
        do {
            _ = try await JournalRestorer(context: context).restore(using: open.sound)
        } catch {
            logger.error("restore incomplete (\(failures)), and again (\(error)); the journal stays for the next start or reconnect")
        }
    }

    /// Looks again in a second, or when the oldest waiting announcement expires, if sooner.
    private func scheduleRetry(until expiry: Date?) {
        retry?.cancel()
        let delay = min(1.0, max(0.05, (expiry ?? .distantFuture).timeIntervalSinceNow))
        retry = Task { [weak self] in
            guard (try? await Task.sleep(for: .seconds(delay))) != nil else { return }
            await self?.soundChanged()
        }
    }

    private func expire(_ entry: Entry) async {
        var record = entry.item.record
        Self.markStale(&record, priority: entry.priority, maxAge: machine.queue.policies[entry.priority].maxAge.inSeconds,
                       reason: machine.waitingFor.map { "waited for \($0)" } ?? "waited for its turn")
        logger.error("announcement \(entry.id) not said: \(record.error ?? "")")
        await log(record)
    }

    /// Fills in a row past its max age: a low one is dropped (`dropped_stale`), the others failed
    /// with the reason (DESIGN.md, "Priorities").
    static func markStale(_ record: inout AnnouncementRecord, priority: Priority, maxAge: TimeInterval, reason: String) {
        record.outcome = priority == .low ? .droppedStale : .failed
        record.error = "older than its max age (\(Int(maxAge)) s for \(priority.rawValue)); \(reason)"
        record.finishedAt = Date()
    }

    func log(_ record: AnnouncementRecord) async {
        // A row is updated only after it was inserted (the entry may play while it is written),
        // and never when it was not: a withdrawn entry leaves no row and counts for nothing.
        guard await awaitInsert(of: record.id) else {
            machine.settle(id: record.id)
            return
        }
        do {
            try await context.store.record(record)
        } catch {
            logger.error("could not log announcement \(record.id): \(error)")
        }
        // Every final outcome of the daemon passes here: /metrics counts what `herald history` lists.
        HeraldMetrics.announcement(record)
        machine.settle(id: record.id)
        notify(record)
        changes.signal()
    }

    private func notify(_ record: AnnouncementRecord) {
        for waiter in (waiters.removeValue(forKey: record.id) ?? [:]).values { waiter.resume(returning: record) }
    }

    private func shutdown() async {
        await closeSession()
        let answered = waiters
        waiters = [:]
        for (_, list) in answered { for waiter in list.values { waiter.resume(returning: nil) } }
    }

    /// Announcements accepted before a stop, not yet played: queued again, in order.
    private func requeueUnfinished() async {
        guard let rows = try? await context.store.unfinished() else { return }
        for row in rows {
            guard let request = AnnouncementRequest(record: row, currency: context.configuration.speech.currency) else { continue }
            var entry = Entry(id: row.id, priority: row.priority, queuedAt: row.queuedAt, item: Queued(request: request, record: row))
            guard case .queue = await applyQuietHours(to: &entry) else { continue }
            _ = machine.submit(entry)
        }
        if !rows.isEmpty { logger.notice("queued again \(rows.count) announcement(s) accepted before the last stop") }
    }

    /// More payments waiting than `coalesce_payments_over`: one summary says them all.
    private func coalescePayments() async {
        let taken = machine.takePaymentsToCoalesce(over: context.configuration.queue.coalescePaymentsOver) {
            if case .payment = $0.request.body { return true } else { return false }
        }
        guard let first = taken.first?.item.request else { return }
        let amounts: [Amount] = taken.compactMap {
            if case .payment(let amount) = $0.item.request.body { amount } else { nil }
        }
        let language = first.language ?? context.configuration.speech.language
        guard let summary = PaymentSummary(amounts: amounts, language: language) else {
            for entry in taken.reversed() { machine.putFirst(entry) }
            return
        }
        var request = AnnouncementRequest(body: .text(summary.text), priority: .high, source: first.source,
                                          language: first.language)
        request.chime = first.chime
        let summaryRecord = Announcer.record(for: request)
        do {
            _ = try await context.store.insertIfNew(summaryRecord)
        } catch {
            logger.error("could not log the payment summary, playing the payments one by one: \(error)")
            for entry in taken.reversed() { machine.putFirst(entry) }
            return
        }
        machine.putFirst(Entry(id: summaryRecord.id, priority: .high, queuedAt: taken[0].queuedAt,
                                item: Queued(request: request, record: summaryRecord)))
        await logCoalesced(taken, into: "summary \(summaryRecord.id)")
    }

    /// Logs `entries` as said in a summary (`into`: which one, and when).
    func logCoalesced(_ entries: [Entry], into summary: String) async {
        for entry in entries {
            var record = entry.item.record
            record.outcome = .coalesced
            record.error = "said in \(summary)"
            record.finishedAt = Date()
            await log(record)
        }
    }
}

extension SoundSystemError {
    /// The server or the sink is not there (yet): wait for it rather than fail.
    var meansWait: Bool {
        switch self {
        case .noServer, .connectionLost, .timedOut, .noSuchSink, .noDefaultSink: true
        case .sinkGone, .operationFailed: false
        }
    }

    var isSinkGone: Bool { if case .sinkGone = self { true } else { false } }
}

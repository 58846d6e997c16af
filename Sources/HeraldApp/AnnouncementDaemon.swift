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
    }

    /// Why the current announcement was stopped before its end.
    enum StopReason: Sendable { case critical, skip, shutdown, retarget }

    private(set) var context: HeraldContext
    private var announcer: Announcer
    let connector: SoundConnector
    let logger: Logger
    /// A queued request with its logged row, so playing it needs no read of the log.
    struct Queued: Sendable {
        var request: AnnouncementRequest
        var record: AnnouncementRecord
    }
    typealias Entry = AnnouncementQueue<Queued>.Entry

    private var queue: AnnouncementQueue<Queued>
    private var current: (entry: Entry, cancel: @Sendable () -> Void, startedAt: Date, stop: StopReason?)?
    /// True until the first announcement of a safeguard session has played: only it needs the lead-in.
    private var sessionIsFresh = false
    private var session: SafeguardSession?
    private var waiters: [String: [CheckedContinuation<AnnouncementRecord?, Never>]] = [:]
    private var paused = false
    private var stopping = false
    private var waitingFor: String?
    private var retry: Task<Void, Never>?
    private var lastPlayedID: String?
    private let startedAt = Date()
    private let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    public init(context: HeraldContext, connector: SoundConnector) {
        self.context = context
        self.connector = connector
        self.logger = context.logger
        announcer = Announcer(context: context)
        queue = AnnouncementQueue(limit: context.configuration.queue.queueLimit, policies: context.configuration.priorities)
    }

    /// Wakes the worker: something changed that may let a waiting announcement play.
    public nonisolated func soundChanged() { wake.yield() }

    /// Validates, deduplicates, logs and queues `request`.
    public func submit(_ request: AnnouncementRequest) async throws -> Submission {
        if let requestID = request.requestID,
           let original = try await context.database.announcement(source: request.source, requestID: requestID) {
            return .duplicate(original)
        }
        let record = Announcer.record(for: request)
        guard try await context.database.insertIfNew(record) else {
            // The same id raced in from another connection a moment ago.
            if let requestID = request.requestID,
               let original = try await context.database.announcement(source: request.source, requestID: requestID) {
                return .duplicate(original)
            }
            throw HeraldFailure.io("could not log the announcement")
        }
        let entry = Entry(id: record.id, priority: request.priority, queuedAt: record.queuedAt,
                          item: Queued(request: request, record: record))
        if case .refusedFull(let limit) = queue.enqueue(entry) {
            var failed = record
            failed.outcome = .failed
            failed.error = "queue full (\(limit) waiting); try again later"
            failed.finishedAt = Date()
            try await context.database.record(failed)
            return .refused(failed, limit: limit)
        }
        if let current, current.stop == nil,
           AnnouncementQueue<Queued>.interrupts(request.priority, current: current.entry.priority) {
            logger.notice("critical announcement interrupts \(current.entry.id)")
            stopCurrent(.critical)
        }
        wake.yield()
        return .accepted(record)
    }

    /// Waits until the announcement `id` has an outcome; nil when it is unknown.
    public func waitUntilFinished(id: String) async throws -> AnnouncementRecord? {
        if let record = try await context.database.announcement(id: id), record.outcome != nil { return record }
        return await withCheckedContinuation { continuation in waiters[id, default: []].append(continuation) }
    }

    /// Plays announcements as they come until `stop()`; then fades out whatever plays, restores
    /// the sink and returns, leaving the rest queued for the next start.
    public func run() async {
        do {
            try await context.database.expireRequestIDs(olderThan: context.configuration.queue.requestIDRetentionDays,
                                                        now: Date())
        } catch {
            logger.warning("could not expire old request ids: \(error)")
        }
        await requeueUnfinished()
        wake.yield()
        for await _ in wakes {
            if stopping { break }
            await drain()
        }
        await shutdown()
    }

    /// Uses a new config from the next announcement on (the one playing finishes as it began).
    public func reload(_ context: HeraldContext) {
        self.context = context
        announcer = Announcer(context: context)
        queue.limit = context.configuration.queue.queueLimit
        queue.policies = context.configuration.priorities
        logger.notice("config reloaded from \(context.configuration.file ?? "the built-in defaults")")
        wake.yield()
    }

    /// Fades out what plays, restores, and ends `run`; what waits stays queued in the log.
    public func stop() {
        stopping = true
        retry?.cancel()
        stopCurrent(.shutdown)
        wake.finish()
    }

    public func snapshot() async -> Snapshot {
        let sound: String = switch await connector.state {
        case .connecting: "connecting"
        case .connected(let server): "connected to \(server)"
        case .waiting(let reason, _): "waiting for a sound server: \(reason)"
        }
        return Snapshot(current: current?.entry.item.record, currentStartedAt: current?.startedAt,
                        currentElapsedMilliseconds: current.map { Int(Date().timeIntervalSince($0.startedAt) * 1000) },
                        queueDepth: Dictionary(uniqueKeysWithValues: queue.depth.map { ($0.key.rawValue, $0.value) }),
                        safeguardOpen: session != nil, uptimeSeconds: Int(Date().timeIntervalSince(startedAt)),
                        paused: paused, soundServer: sound, waitingFor: waitingFor)
    }

    /// Stops the current announcement (fading it) and moves on; false when nothing plays.
    public func skipCurrent() -> Bool {
        guard current != nil else { return false }
        stopCurrent(.skip)
        return true
    }

    /// Pauses the announcement playing now (the sink stays safeguarded); false when none plays.
    public func pauseCurrent() -> Bool {
        guard current != nil, let session else { return false }
        return session.sound.setPlaybackPaused(true)
    }

    /// Resumes a paused announcement where it stopped.
    public func resumeCurrent() -> Bool {
        guard current != nil, let session else { return false }
        return session.sound.setPlaybackPaused(false)
    }

    /// Holds the queue after the current announcement; `resume()` goes on.
    public func pause() { paused = true }

    public func resume() {
        paused = false
        wake.yield()
    }

    /// The daemon's live connection, for status reports; nil while it waits for a server.
    public var soundSystem: (any SoundSystem)? { get async { try? await connector.current() } }

    /// The id of the last announcement that played, for replay-last.
    public var lastPlayed: String? { lastPlayedID }

    private func stopCurrent(_ reason: StopReason) {
        guard var running = current, running.stop == nil else { return }
        running.stop = reason
        current = running
        running.cancel()
    }

    // MARK: - The worker

    /// What to do after one announcement's turn.
    enum Turn { case goOn, wait(String) }

    private func drain() async {
        while !paused && !stopping {
            await coalescePayments()
            let (next, stale) = queue.next(now: Date())
            for entry in stale { await expire(entry) }
            guard let entry = next else { break }
            switch await play(entry) {
            case .goOn:
                waitingFor = nil
            case .wait(let reason):
                if waitingFor != reason { logger.warning("announcements wait: \(reason)") }
                waitingFor = reason
                await closeSession()
                scheduleRetry()
                return
            }
        }
        await closeSession()
    }

    /// Plays one entry; an entry that cannot play now goes back to the front of its lane.
    private func play(_ entry: Entry) async -> Turn {
        let requested = ContinuousClock.now
        var record = entry.item.record
        let request = entry.item.request
        // The server first: an announcement waiting for one is not rendered again every second.
        let sound: PulseConnection
        do {
            sound = try await connector.current()
        } catch {
            queue.replayFirst(entry)
            return .wait("\(error)")
        }
        let rendered: RenderedAudio
        do {
            rendered = try await announcer.render(request)
        } catch {
            await fail(&record, error)
            return .goOn
        }
        if let open = session, open.sound !== sound { await closeSession() }
        if session == nil {
            do {
                switch try await SafeguardSession.open(context: context, sound: sound, priority: request.priority,
                                                       lockTimeout: .seconds(30)) {
                case .suppressedMuted(let sink):
                    await logSuppressed(&record, sink: sink)
                    return .goOn
                case .opened(let opened):
                    session = opened
                    sessionIsFresh = true
                }
            } catch let error as SoundSystemError where error.meansWait {
                queue.replayFirst(entry)
                return .wait("\(error)")
            } catch {
                await fail(&record, error)
                return .goOn
            }
        }
        guard let session else { return .goOn }
        // A session opened for a priority that overrides the mute does not carry a `respect` one.
        let mute = context.configuration.priorities.mutePolicy(for: request.priority,
                                                               fallback: context.configuration.safeguard.mutePolicy)
        if session.before.muted && mute == .respect {
            await logSuppressed(&record, sink: session.before)
            return .goOn
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
        current = (entry, { task.cancel() }, Date(), nil)
        let targetWatch = watchTarget(of: session)
        let (played, playback) = await task.value
        targetWatch?.cancel()
        let stop = current?.stop
        current = nil
        record = played
        if case .failure(let error as SoundSystemError) = playback, error.meansWait || error.isSinkGone {
            // The server or the sink went away under it: said again when one is back, within its max age.
            logger.warning("announcement \(entry.id) lost (\(error)); it will be said again")
            queue.replayFirst(entry)
            await closeSession()
            return error.isSinkGone ? .goOn : .wait("\(error)")
        }
        switch stop {
        case .shutdown:
            // Left unfinished in the log: the next start says it again.
            return .goOn
        case .retarget:
            logger.notice("the default sink changed during \(entry.id): saying it again on the new one")
            queue.replayFirst(entry)
            await closeSession()
            return .goOn
        default:
            break
        }
        do {
            try await announcer.finish(&record, playback: playback, rendered: rendered)
        } catch {
            await fail(&record, error)
            return .goOn
        }
        if record.outcome == .interrupted && stop == .critical && entry.priority == .high {
            // A payment cut off by an emergency is said again right after it.
            var replay = entry
            replay.item.record = record
            queue.replayFirst(replay)
            return .goOn
        }
        if record.outcome == .played { lastPlayedID = entry.id }
        await log(record)
        return .goOn
    }

    /// With no configured sink, stops the current announcement when the server's default sink
    /// becomes another one, so it is said where the listener now listens.
    private func watchTarget(of session: SafeguardSession) -> Task<Void, Never>? {
        guard context.configuration.safeguard.sinkName == nil else { return nil }
        let sound = session.sound
        let sinkName = session.sinkName
        return Task { [weak self] in
            guard let events = try? await sound.events() else { return }
            for await event in events where event == .serverChanged {
                guard let now = try? await sound.serverInfo().defaultSinkName, now != sinkName else { continue }
                await self?.stopCurrent(.retarget)
                return
            }
        }
    }

    private func closeSession() async {
        guard let open = session else { return }
        session = nil
        if let failures = await open.close()?.failures, !failures.isEmpty {
            logger.error("restore incomplete (\(failures)); the journal is applied when the server is back")
        }
    }

    /// Looks again in a second, or when the oldest waiting announcement expires, if sooner.
    private func scheduleRetry() {
        retry?.cancel()
        let delay = min(1.0, max(0.05, (queue.nextExpiry() ?? .distantFuture).timeIntervalSinceNow))
        retry = Task { [weak self] in
            guard (try? await Task.sleep(for: .seconds(delay))) != nil else { return }
            self?.soundChanged()
        }
    }

    private func expire(_ entry: Entry) async {
        let maxAge = queue.policies[entry.priority].maxAge
        var record = entry.item.record
        let reason = waitingFor.map { "waited for \($0)" } ?? "waited for its turn"
        record.outcome = entry.priority == .low ? .droppedStale : .failed
        record.error = "older than its max age (\(Int(maxAge.inSeconds)) s for \(entry.priority.rawValue)); \(reason)"
        record.finishedAt = Date()
        logger.error("announcement \(entry.id) not said: \(record.error ?? "")")
        await log(record)
    }

    private func logSuppressed(_ record: inout AnnouncementRecord, sink: SinkState) async {
        do { try await announcer.logSuppressed(&record, sink: sink) } catch {
            logger.error("could not log announcement \(record.id): \(error)")
        }
        notify(record)
    }

    private func fail(_ record: inout AnnouncementRecord, _ error: any Error) async {
        await announcer.logFailure(&record, error)
        notify(record)
    }

    private func log(_ record: AnnouncementRecord) async {
        do { try await context.database.record(record) } catch {
            logger.error("could not log announcement \(record.id): \(error)")
        }
        notify(record)
    }

    private func notify(_ record: AnnouncementRecord) {
        for waiter in waiters.removeValue(forKey: record.id) ?? [] { waiter.resume(returning: record) }
    }

    private func shutdown() async {
        await closeSession()
        for (_, list) in waiters { for waiter in list { waiter.resume(returning: nil) } }
        waiters = [:]
    }

    /// Announcements accepted before a stop, not yet played: queued again, in order.
    private func requeueUnfinished() async {
        guard let rows = try? await context.database.unfinished() else { return }
        for row in rows {
            guard let request = AnnouncementRequest(record: row) else { continue }
            _ = queue.enqueue(Entry(id: row.id, priority: row.priority, queuedAt: row.queuedAt,
                                    item: Queued(request: request, record: row)))
        }
        if !rows.isEmpty { logger.notice("queued again \(rows.count) announcement(s) accepted before the last stop") }
    }

    /// More payments waiting than `coalesce_payments_over`: one summary says them all.
    private func coalescePayments() async {
        let taken = queue.takePaymentsToCoalesce(over: context.configuration.queue.coalescePaymentsOver) {
            if case .payment = $0.request.body { return true } else { return false }
        }
        guard let first = taken.first?.item.request else { return }
        let amounts: [(amount: String, currency: String?)] = taken.compactMap {
            if case .payment(let amount, let currency) = $0.item.request.body { return (amount, currency) } else { return nil }
        }
        let language = first.language ?? context.configuration.speech.language
        guard let summary = PaymentSummary(amounts: amounts, language: language, settings: context.configuration.speech) else {
            for entry in taken.reversed() { queue.replayFirst(entry) }
            return
        }
        var request = AnnouncementRequest(body: .text(summary.text), priority: .high, source: first.source,
                                          language: first.language)
        request.chime = first.chime
        let summaryRecord = Announcer.record(for: request)
        do {
            _ = try await context.database.insertIfNew(summaryRecord)
        } catch {
            logger.error("could not log the payment summary, playing the payments one by one: \(error)")
            for entry in taken.reversed() { queue.replayFirst(entry) }
            return
        }
        queue.replayFirst(Entry(id: summaryRecord.id, priority: .high, queuedAt: taken[0].queuedAt,
                                item: Queued(request: request, record: summaryRecord)))
        for entry in taken {
            var record = entry.item.record
            record.outcome = .coalesced
            record.error = "said in summary \(summaryRecord.id)"
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

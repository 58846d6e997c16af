import Foundation
import HeraldConfig
import HeraldCore
import Logging
import PulseAudio
import Speech

/// The resident announcer behind `herald serve`: one queue for every source, back-to-back
/// announcements under one safeguard, critical interrupting the rest, exactly-once request ids.
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
    }

    private(set) var context: HeraldContext
    private var announcer: Announcer
    private var sound: PulseConnection
    let logger: Logger
    public private(set) var settings: QueueSettings
    /// A queued request with its logged row, so playing it needs no read of the log.
    struct Queued: Sendable {
        var request: AnnouncementRequest
        var record: AnnouncementRecord
    }
    typealias Entry = AnnouncementQueue<Queued>.Entry

    private var queue: AnnouncementQueue<Queued>
    private var current: (entry: Entry, cancel: @Sendable () -> Void, startedAt: Date)?
    /// True until the first announcement of a safeguard session has played: only it needs the lead-in.
    private var sessionIsFresh = false
    private var interruptedForReplay = false
    private var session: SafeguardSession?
    private var waiters: [String: [CheckedContinuation<AnnouncementRecord?, Never>]] = [:]
    private var paused = false
    private var lastPlayedID: String?
    private let startedAt = Date()
    private let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    public init(context: HeraldContext, sound: PulseConnection, settings: QueueSettings) {
        self.context = context
        self.sound = sound
        self.settings = settings
        self.logger = context.logger
        announcer = Announcer(context: context, sound: sound)
        queue = AnnouncementQueue(limit: settings.queueLimit, lowMaxAge: settings.lowMaxAgeSeconds)
    }

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
        if let current, AnnouncementQueue<Queued>.interrupts(request.priority, current: current.entry.priority) {
            logger.notice("critical announcement interrupts \(current.entry.id)")
            interruptedForReplay = current.entry.priority == .high
            current.cancel()
        }
        wake.yield()
        return .accepted(record)
    }

    /// Waits until the announcement `id` has an outcome; nil when it is unknown.
    public func waitUntilFinished(id: String) async throws -> AnnouncementRecord? {
        if let record = try await context.database.announcement(id: id), record.outcome != nil { return record }
        return await withCheckedContinuation { continuation in waiters[id, default: []].append(continuation) }
    }

    /// Plays announcements as they come until the task is cancelled; then fades out whatever
    /// plays, restores the sink and returns.
    public func run() async {
        do {
            try await context.database.expireRequestIDs(olderThan: settings.requestIDRetentionDays, now: Date())
        } catch {
            logger.warning("could not expire old request ids: \(error)")
        }
        await requeueUnfinished()
        for await _ in wakes {
            if Task.isCancelled { break }
            await drain()
        }
        await shutdown()
    }

    /// Uses a new config from the next announcement on (the one playing finishes as it began).
    public func reload(_ context: HeraldContext) {
        self.context = context
        announcer = Announcer(context: context, sound: sound)
        settings = context.configuration.queue
        queue.limit = settings.queueLimit
        queue.lowMaxAge = settings.lowMaxAgeSeconds
        logger.notice("config reloaded from \(context.configuration.file ?? "the built-in defaults")")
    }

    /// Stops accepting wake-ups: `run` finishes the current fade and restores.
    public func stop() {
        wake.finish()
        current?.cancel()
    }

    public func snapshot() -> Snapshot {
        Snapshot(current: current?.entry.item.record, currentStartedAt: current?.startedAt,
                        currentElapsedMilliseconds: current.map { Int(Date().timeIntervalSince($0.startedAt) * 1000) },
                        queueDepth: Dictionary(uniqueKeysWithValues: queue.depth.map { ($0.key.rawValue, $0.value) }),
                        safeguardOpen: session != nil, uptimeSeconds: Int(Date().timeIntervalSince(startedAt)),
                        paused: paused)
    }

    /// Stops the current announcement (fading it) and moves on; false when nothing plays.
    public func skipCurrent() -> Bool {
        guard let current else { return false }
        interruptedForReplay = false
        current.cancel()
        return true
    }

    /// Pauses the announcement playing now (the sink stays safeguarded); false when none plays.
    public func pauseCurrent() -> Bool {
        current != nil && sound.setPlaybackPaused(true)
    }

    /// Resumes a paused announcement where it stopped.
    public func resumeCurrent() -> Bool {
        current != nil && sound.setPlaybackPaused(false)
    }

    /// Holds the queue after the current announcement; `resume()` goes on.
    public func pause() { paused = true }

    public func resume() {
        paused = false
        wake.yield()
    }

    /// The daemon's open connection, for status reports.
    public var soundSystem: any SoundSystem { sound }

    /// The id of the last announcement that played, for replay-last.
    public var lastPlayed: String? { lastPlayedID }

    // MARK: - The worker

    private func drain() async {
        while !paused {
            await coalescePayments()
            let (next, stale) = queue.next(now: Date())
            for entry in stale {
                await finish(entry.item.record, outcome: .droppedStale, error: "older than \(Int(settings.lowMaxAgeSeconds)) s")
            }
            guard let entry = next else { break }
            await play(entry)
        }
        if let session {
            self.session = nil
            if let failures = await session.close()?.failures, !failures.isEmpty {
                logger.error("restore incomplete: \(failures); run 'herald restore'")
            }
        }
    }

    private func play(_ entry: Entry) async {
        let requested = ContinuousClock.now
        var record = entry.item.record
        let announcer = self.announcer
        do {
            let rendered = try await announcer.render(entry.item.request)
            if session == nil {
                switch try await openSession() {
                case .suppressedMuted(let sink):
                    try await announcer.logSuppressed(&record, sink: sink)
                    notify(record)
                    return
                case .opened(let opened):
                    session = opened
                    sessionIsFresh = true
                }
            }
            guard let session else { return }
            // Only the first announcement of a session needs the lead-in: the sink is awake after it.
            let leadIn = sessionIsFresh ? session.leadIn(context.configuration.safeguard) : 0
            sessionIsFresh = false
            let request = entry.item.request
            let snapshot = record
            // Its own task, so a critical announcement can cancel it: the playback fades out.
            let task = Task { [announcer] () -> (AnnouncementRecord, Result<(PlaybackReport, prefixMilliseconds: Int, requestToPlay: Int), any Error>) in
                var record = snapshot
                let result = await announcer.play(rendered, request: request, in: session, record: &record,
                                                  requested: requested, leadIn: leadIn)
                return (record, result)
            }
            current = (entry, { task.cancel() }, Date())
            let (played, playback) = await task.value
            record = played
            try await announcer.finish(&record, playback: playback, rendered: rendered)
            current = nil
            if record.outcome == .interrupted && interruptedForReplay {
                interruptedForReplay = false
                var replay = entry
                replay.item.record = record
                queue.replayFirst(replay)
                try await context.database.record(record)
                return
            }
            if record.outcome == .played { lastPlayedID = entry.id }
            try await context.database.record(record)
            notify(record)
        } catch {
            current = nil
            await announcer.logFailure(&record, error)
            notify(record)
        }
    }

    /// Opens the safeguard; when the server went away (restarted), connects again once and retries.
    private func openSession() async throws -> SafeguardSession.Opening {
        do {
            return try await SafeguardSession.open(context: context, sound: sound, lockTimeout: .seconds(30))
        } catch let error as SoundSystemError {
            switch error {
            case .connectionLost, .noServer, .timedOut:
                logger.warning("sound server connection lost (\(error)); connecting again")
                sound = try await context.connectSound()
                announcer = Announcer(context: context, sound: sound)
                return try await SafeguardSession.open(context: context, sound: sound, lockTimeout: .seconds(30))
            default:
                throw error
            }
        }
    }

    private func finish(_ record: AnnouncementRecord, outcome: Outcome, error: String?) async {
        var record = record
        record.outcome = outcome
        record.error = error
        record.finishedAt = Date()
        try? await context.database.record(record)
        notify(record)
    }

    private func notify(_ record: AnnouncementRecord) {
        for waiter in waiters.removeValue(forKey: record.id) ?? [] { waiter.resume(returning: record) }
    }

    private func shutdown() async {
        if let session {
            self.session = nil
            _ = await session.close()
        }
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
        if !rows.isEmpty {
            logger.notice("queued again \(rows.count) announcement(s) accepted before the last stop")
            wake.yield()
        }
    }

    /// More payments waiting than `coalesce_payments_over`: one summary says them all.
    private func coalescePayments() async {
        let taken = queue.takePaymentsToCoalesce(over: settings.coalescePaymentsOver) {
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
            await finish(entry.item.record, outcome: .coalesced, error: "said in summary \(summaryRecord.id)")
        }
    }
}

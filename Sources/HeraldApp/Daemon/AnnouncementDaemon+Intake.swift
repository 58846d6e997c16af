import Foundation
import HeraldCore
import HeraldStore

/// Intake: a request becomes a logged row and a queued entry, once per request id; `?wait=true`
/// requests wait for its outcome.
extension AnnouncementDaemon {
    /// Validates, deduplicates, logs and queues `request`.
    ///
    /// The entry is queued while its row is being written, so the first word does not wait for
    /// a synced write; the answer does: `accepted` means the row is in the log. Any later write
    /// of that row waits for it (`log`).
    func admit(_ request: AnnouncementRequest) async throws -> Submission {
        let record = Turn.record(for: request, at: now())
        // The log as it is now: a reload during the awaits below does not split the row from its outcome.
        let store = context.store
        let requestKey = request.requestID.map { "\(request.source.rawValue)\u{1F}\(request.client)\u{1F}\($0)" }
        if let requestKey, let requestID = request.requestID {
            // One job: a copy sent at once over another connection checks after this one claimed.
            let original = try await jobs.serially { () async throws -> AnnouncementRecord? in
                if let original = try await duplicate(of: requestKey, requestID: requestID, request, in: store) { return original }
                machine.claim(requestKey, for: record.id)
                return nil
            }
            if let original { return .duplicate(original) }
        }
        // Alone in an idle queue it plays at once: its restore journal is synced first.
        let playsAtOnce = machine.turns.current == nil && machine.turns.queue.isEmpty && !machine.turns.paused
        machine.inserting(record.id, by: RowInsert(record, into: store, holdAtMost: playsAtOnce ? .milliseconds(10) : nil))
        defer {
            machine.inserted(record.id)
            if let requestKey { machine.released(requestKey) }
        }
        let queued = try await queue(request, record, in: store)
        // The answer waits for the row: a request accepted is one that survives a crash.
        guard await awaitInsert(of: record.id, holdingIt: true) else {
            // The same id raced in from another process (the claim covers this one's
            // connections), or not even memory could take the row.
            withdraw(record.id)
            if let requestID = request.requestID,
               let original = try await store.announcement(source: request.source, client: request.client, requestID: requestID) {
                HeraldMetrics.duplicate(source: request.source)
                return .duplicate(original)
            }
            throw HeraldFailure.io("could not log the announcement")
        }
        return queued
    }

    /// The announcement already accepted with this request id, if any (waiting for its row when
    /// it is still being written).
    func duplicate(of requestKey: String, requestID: String, _ request: AnnouncementRequest,
                   in store: AnnouncementStore) async throws -> AnnouncementRecord? {
        // Claimed by a copy whose row is being written: its row answers once it is in.
        if let claimant = machine.claimant(of: requestKey) { _ = try? await claimant.insert?.inserted }
        guard let original = try await store.announcement(source: request.source, client: request.client,
                                                                  requestID: requestID) else {
            return nil
        }
        HeraldMetrics.duplicate(source: request.source)
        return original
    }

    /// Queues a new entry (or holds, drops or refuses it, logging why) and wakes the worker.
    func queue(_ request: AnnouncementRequest, _ record: AnnouncementRecord, in store: AnnouncementStore) async throws -> Submission {
        // Aged from when it was sent: a sender's clock ahead of ours counts as sent on arrival.
        let sentAt = min(request.sentAt ?? record.queuedAt, record.queuedAt)
        let maxAge = machine.turns.queue.policies[request.priority].maxAge.inSeconds
        if record.queuedAt.timeIntervalSince(sentAt) > maxAge {
            var stale = record
            Self.markStale(&stale, at: record.queuedAt, priority: request.priority, maxAge: maxAge,
                           reason: "sent \(Int(record.queuedAt.timeIntervalSince(sentAt))) s before it arrived")
            logger.error("announcement \(record.id) not said: \(stale.error ?? "")")
            await log(stale, in: store)
            return .accepted(stale)
        }
        var entry = Self.entry(id: record.id, priority: request.priority, queuedAt: sentAt,
                          item: Queued(request: request, record: record, store: store))
        switch await applyQuietHours(to: &entry) {
        case .queue: break
        case .held(let row): return .accepted(row)
        }
        let (admission, interrupt) = machine.turns.submit(entry)
        if case .refusedFull(let limit) = admission {
            var failed = record
            failed.outcome = .failed
            failed.error = "queue full (\(limit) waiting); try again later"
            failed.finishedAt = now()
            // Logged as every outcome is (a row left without one would be said at the next start).
            await log(failed, in: store)
            return .refused(failed, limit: limit)
        }
        if interrupt, let current = machine.turns.current {
            logger.notice("critical announcement interrupts \(current.entry.id)")
            playing?.cancel()
        }
        wake.yield()
        changes.signal()
        return .accepted(record)
    }

    /// Takes back an entry whose row was not inserted: out of the queue or quiet hours' hold, or,
    /// when it plays, stopped now and neither said again nor logged when its turn ends.
    func withdraw(_ id: String) {
        logger.error("announcement \(id) withdrawn: its row was not inserted (a duplicate, or the log failed)")
        let (stopPlaying, unanswered) = machine.withdraw(id: id)
        if stopPlaying { playing?.cancel() }
        for waiter in unanswered { waiter.resume(returning: nil) }
    }

    /// Waits until the row `id` is inserted, when it is being inserted now. False when it was
    /// not (a duplicate of a row logged by another process, or a failure): nothing may update it.
    /// - Parameter holdingIt: leave a held insert to its safeguard's open (the answer's wait);
    ///   any other wait starts it now: that row is being written to, not played.
    func awaitInsert(of id: String, holdingIt: Bool = false) async -> Bool {
        guard !machine.isWithdrawn(id) else { return false }
        guard let insert = machine.insert(of: id) else { return true }
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
    /// Whoever resumes a waiter takes it out of the machine first: it is resumed exactly once.
    func waitFor(_ id: String) async -> AnnouncementRecord? {
        let token = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Cancelled before the waiter exists: nothing to register, nothing to wait for.
                if Task.isCancelled { return continuation.resume(returning: nil) }
                // Stopping: nothing more is logged by this run.
                if !machine.wait(for: id, token: token, continuation) { continuation.resume(returning: nil) }
            }
        } onCancel: {
            // Cancelled after: runs once this turn of the actor (the registration) is over.
            Task { await self.stopWaiting(id, token) }
        }
    }

    func stopWaiting(_ id: String, _ token: UUID) {
        machine.stopWaiting(for: id, token: token)?.resume(returning: nil)
    }

    /// How many requests wait for an outcome, for tests.
    var waiterCount: Int { machine.waiterCount }
    /// Answers whoever waits for `record`'s outcome.
    func notify(_ record: AnnouncementRecord) {
        for waiter in machine.takeWaiters(of: record.id) { waiter.resume(returning: record) }
    }
}

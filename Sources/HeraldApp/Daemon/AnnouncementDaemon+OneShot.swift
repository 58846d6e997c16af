import Foundation
import HeraldCore

/// The CLI's `--local` run (`herald say`, `pay`, `play` with no daemon, or `--local`): the one
/// request goes through this same daemon in the process, so quiet hours, max age and request-id
/// dedup apply as they do in `herald serve`. There is no second way to make a sound.
extension AnnouncementDaemon {
    /// What `announceOnce` made of a request.
    public enum LocalOutcome: Sendable {
        /// Said, interrupted, suppressed, or not said (a duplicate answers with the original row).
        case finished(AnnouncementRecord)
        /// Held by quiet hours (`priorities.P.quiet_hours: defer`): its row stays in the log
        /// without an outcome, and `herald serve` says it when they end (`until`).
        case deferred(AnnouncementRecord, until: Date?)
    }

    /// Announces `request` in this process and returns once everything is restored and logged.
    ///
    /// With no sound server or no sink it fails at once (a person waits at the terminal; the
    /// daemon would wait within the max age). Cancelling the calling task (Ctrl-C) stops the
    /// announcement: the playback fades out, the sink is restored, the row says `interrupted`.
    /// - Parameter now: the wall clock (quiet hours, max age); a test passes its own.
    /// - Throws: `HeraldFailure` when it failed (its row logged `failed`) or the restore was incomplete.
    public static func announceOnce(_ request: AnnouncementRequest, context: HeraldContext,
                                    now: @escaping @Sendable () -> Date = { Date() }) async throws -> LocalOutcome {
        let connector = SoundConnector(logger: context.logger, onConnect: { _ in }, changed: {})
        let daemon = AnnouncementDaemon(live: LiveContext(context), connector: connector, warmFormat: nil, oneShot: true, now: now)
        // In tasks of their own: the caller's cancellation interrupts the announcement rather than
        // abandoning it half-way (GRDB and the ramps honour cancellation; a cancelled restore
        // would leave the sink raised).
        let worker = Task { await daemon.run() }
        let outcome = await withTaskCancellationHandler {
            await Task { () -> Result<LocalOutcome, any Error> in
                await connector.connectOnce()
                do { return .success(try await daemon.take(request)) } catch { return .failure(error) }
            }.value
        } onCancel: {
            Task { await daemon.interrupt() }
        }
        await daemon.stop()
        await worker.value
        // Its audio, kept for listening back, is written before the process exits.
        await KeptAudio.drained()
        let failures = await daemon.restoreFailures
        guard failures.isEmpty else { throw HeraldFailure.restoreIncomplete(failures) }
        let result = try outcome.get()
        if case .finished(let record) = result, record.outcome == .failed {
            throw HeraldFailure.announcementFailed(record.error ?? "the announcement failed")
        }
        return result
    }

    /// Submits the one request and waits for its outcome, unless quiet hours hold it.
    private func take(_ request: AnnouncementRequest) async throws -> LocalOutcome {
        switch try await submit(request) {
        case .duplicate(let original), .refused(let original, _):
            return .finished(original)
        case .accepted(let record):
            if record.outcome != nil { return .finished(record) }
            // Said in the rooms whose quiet hours let it (`holdForLaterRooms` answers then), or
            // in none yet.
            let said = machine.turns.deferred.isEmpty ? try await waitUntilFinished(id: record.id) ?? record : record
            guard said.outcome == nil, let held = machine.turns.deferred.first else { return .finished(said) }
            return .deferred(said, until: quietHours.firstEnd(in: turnKit.rooms(for: held.item), after: now()))
        }
    }

    /// Ctrl-C: the entry playing fades out and is logged `interrupted`; one not begun is not.
    func interrupt() {
        interrupted = true
        if machine.turns.stopCurrent(.skip) { playing?.cancel() }
    }

    /// A one-shot run does not wait for a sound server or a sink: what would wait fails now,
    /// with the reason it would have waited for.
    func failInsteadOfWaiting(_ end: QueueMachine<Queued>.TurnEnd,
                              _ record: AnnouncementRecord) -> (QueueMachine<Queued>.TurnEnd, AnnouncementRecord) {
        switch end {
        case .cannotStart(let reason), .lost(let reason, _), .speakersAway(let reason):
            var record = record
            record.outcome = .failed
            record.error = reason
            record.finishedAt = now()
            logger.error("announcement failed", metadata: ["body": "\(record.body)", "error": "\(reason)"])
            return (.failed, record)
        case .finished, .failed, .suppressed:
            return (end, record)
        }
    }
}

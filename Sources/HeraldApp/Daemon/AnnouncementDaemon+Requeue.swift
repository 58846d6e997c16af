import Foundation
import HeraldCore
import HeraldStore

/// What an earlier run left unsaid (rows without an outcome), taken up at start: queued again in
/// order, or logged `played` when the said mark shows it was heard to its end before the stop.
extension AnnouncementDaemon {
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
            _ = machine.turns.submit(entry)
            takenUp.append(row)
            queuedAgain += 1
        }
        if queuedAgain > 0 { logger.notice("queued again \(queuedAgain) announcement(s) accepted before the last stop") }
    }

    /// Waits until `run` has read what an earlier run left, and returns the rows it took up (queued
    /// again, or logged played from the said mark): an intake whose sender waits for outcomes
    /// (MQTT's events) reports theirs, which the earlier run could not. Empty once stopping.
    public func rowsTakenUpFromLastRun() async -> [AnnouncementRecord] {
        if requeued || machine.turns.stopping { return takenUp }
        return await withCheckedContinuation { takenUpWaiters.append($0) }
    }

    func answerTakenUpWaiters() {
        let waiting = takenUpWaiters
        takenUpWaiters = []
        for waiter in waiting { waiter.resume(returning: takenUp) }
    }

    /// `id` is a request this run took in (queued, held, playing, or its row being written).
    private func isTakenInSinceStart(_ id: String) -> Bool { machine.isPending(id: id) }
}

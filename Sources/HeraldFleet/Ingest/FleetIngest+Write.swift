import Foundation
import HeraldCore
import Logging

extension FleetIngest {
    /// Writes what waits, a batch at a time, until `waiting` finishes and is empty. A failed write
    /// keeps the batch and tries again, waiting longer each time (up to 10 s).
    func write(from waiting: WaitingMessages) async {
        var retries = Backoff(initial: .milliseconds(250), maximum: .seconds(10))
        var downSince: Date?
        var reportedDropped = 0
        while let batch = await waiting.next(Self.batchSize) {
            do {
                // Everything received up to the batch's last message is written with it: the
                // queue holds them in the order they came.
                let through = batch.last?.receivedAt ?? Date()
                let added = try await store.record(batch, console: settings.name, spool: link.spool.id, writtenThrough: through)
                metrics.ingested(added)
                await waiting.written(batch.count)
                if let since = downSince {
                    logger.notice("fleet: the database answers again; wrote what waited since \(since.formatted(.iso8601))")
                    downSince = nil
                }
                retries.reset()
            } catch {
                if downSince == nil {
                    downSince = Date()
                    logger.error("fleet: could not write \(batch.count) hub messages to \(settings.database.description): \(String(reflecting: error)); keeping them and trying again")
                }
                let dropped = await waiting.dropped
                if dropped > reportedDropped {
                    logger.error("fleet: \(dropped - reportedDropped) waiting events dropped, the oldest first: more than \(Self.maxWaitingEvents) waited for the database")
                    reportedDropped = dropped
                }
                if await waiting.isFinished {
                    let left = await waiting.count
                    logger.error("fleet: stopping with \(left) hub messages not written (the database did not answer); they stay in the spool \(link.spool.path) and are written at the next start")
                    return
                }
                try? await Task.sleep(for: retries.next())
            }
        }
    }

    /// With nothing waiting, says so every second: everything spooled so far is written, and
    /// everything received until now. Without it an idle console's mark would stand still and
    /// hold the alarm rules back (`SilenceClock`). Also starts the spool afresh when it has grown.
    func keepMarking(_ waiting: WaitingMessages) async {
        while !Task.isCancelled, !(await waiting.isFinished) {
            try? await Task.sleep(for: .seconds(1))
            await markIfIdle(waiting)
        }
    }

    /// The order matters: the time first, then how far the spool goes; a message received before
    /// that time is in the spool by then, so if all of it has been written, so has the message.
    @discardableResult
    private func markIfIdle(_ waiting: WaitingMessages, rotateOver: Int = 8 << 20) async -> Bool {
        let now = Date()
        let spooled = link.spool.last
        guard await waiting.isIdle(through: spooled) else { return false }
        do {
            try await store.mark(console: settings.name, spool: link.spool.id, sequence: spooled, writtenThrough: now)
            try link.spool.rotate(committed: spooled, over: rotateOver)
            return true
        } catch {
            return false
        }
    }

    /// A clean stop: with everything written, the spool starts empty and this console's mark
    /// stops holding the alarm rules back. With something left (the database away), the mark
    /// stays: those messages are the spool's, written at the next start.
    func leave(_ waiting: WaitingMessages) async {
        guard await markIfIdle(waiting, rotateOver: 0) else { return }
        do {
            try await store.leave(console: settings.name)
        } catch {
            logger.warning("fleet: could not say this console left: \(error); its mark holds the silence rules back for a minute or so")
        }
    }
}

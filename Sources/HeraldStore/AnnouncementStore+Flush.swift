import Foundation
import HeraldCore

extension AnnouncementStore {
    /// Writes what waits in memory to the database once it can be written again (reopening it,
    /// so a removed folder is made anew). Does nothing when healthy.
    ///
    /// The buffer is handed off before it is copied (`memory` becomes a fresh one at once), so a
    /// row recorded or updated during the copy lands in the new buffer and is copied after it;
    /// the store is healthy again only once a look at `memory` finds it empty, with no await
    /// between that look and the switch to the file.
    /// - Returns: how many rows were written.
    @discardableResult
    public func flush() async -> Int {
        guard let reason = degraded, !flushing else { return 0 }
        flushing = true
        defer { flushing = false }
        do {
            let reopened = try AppDatabase(path: path)
            var written = 0
            var copied = 0  // of `handedOff`, oldest first (a failed flush leaves them to the next)
            while true {
                if copied == handedOff.count {
                    if try memory.isEmptyNow() { break }
                    handedOff.append(memory)
                    memory = makeBuffer()
                }
                written += try await copy(handedOff[copied], to: reopened)
                copied += 1
            }
            // Synchronous from the empty look above: nothing can land in a buffer in between.
            file = reopened
            for buffer in handedOff + [memory] { Self.remove(buffer) }
            handedOff = []
            memory = Self.inMemoryDatabase()
            degraded = nil
            logger.notice("the database can be written again; wrote the rows kept in memory",
                          metadata: ["rows": "\(written)", "was": "\(reason)"])
            return written
        } catch {
            degraded = "cannot write the database \(path): \(error)"
            return 0
        }
    }

    /// Copies every row of a handed-off buffer to `target`, oldest first, and its used signatures;
    /// returns how many rows.
    private func copy(_ buffer: AppDatabase, to target: AppDatabase) async throws -> Int {
        let rows = try await buffer.announcements(since: nil, outcome: nil, limit: .max)
        for row in rows.reversed() {
            do { try await target.record(row) } catch {
                // Its request id was taken meanwhile (another process): keep the row, not the claim.
                var unclaimed = row
                unclaimed.requestID = nil
                try await target.record(unclaimed)
            }
            await flushObserver?(row)
        }
        let now = Date()
        for used in try buffer.usedSignaturesNow(now: now) { try target.recordUsedSignatureNow(used.mac, until: used.expiry, now: now) }
        return rows.count
    }
}

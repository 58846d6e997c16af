import Foundation
import HeraldCore

extension AnnouncementStore {
    // MARK: The restore journal
    //
    // Two places on disk, the journal beside the database and the fallback in the runtime folder,
    // numbered in one sequence: the newest record of either is the journal, so an older record
    // left in the other place (one that could not be removed) never hides it.

    /// Stores `entry` durably: synced to the journal beside the database, else to the fallback in
    /// the runtime folder, else in memory (with a critical log line: a crash now would leave the
    /// sink as Herald set it). `retryJournal` moves it back to its place.
    public func save(_ entry: JournalEntry) async throws {
        let data = try JSONEncoder().encode(entry)
        if put(data) { return }
        defer { journalInMemory = entry }
        guard journalInMemory == nil else { return }  // said once, not at every retry
        logger.critical("the restore journal is kept in memory only: a crash now would leave the sink raised until the next announcement",
                        metadata: ["file": "\(journalFileFailing ?? "")", "fallback": "\(journalFallback.path)"])
    }

    /// The pending entry: memory's, else the newest record on disk, else a row an earlier version
    /// of Herald left in the database. A record that does not decode is logged and skipped.
    public func pending() async throws -> JournalEntry? {
        if let entry = journalInMemory { return entry }
        if let (record, file) = newest(onDisk()) {
            guard !record.entry.isEmpty else { return nil }  // cleared
            do { return try JSONDecoder().decode(JournalEntry.self, from: record.entry) } catch {
                logger.error("ignoring an unreadable restore journal",
                             metadata: ["file": "\(file.slotPath(record.slot))", "error": "\(error)"])
                return nil
            }
        }
        return await legacyJournal()
    }

    /// Forgets the pending entry: a synced "cleared" record newer than any entry.
    public func clear() async throws {
        journalInMemory = nil
        let disk = onDisk()
        if let (record, _) = newest(disk), !record.entry.isEmpty, !put(Data(), over: disk) {
            logger.error("the restore journal could not be cleared: the next start restores this announcement's changes again (only what still equals what Herald set)")
        }
        guard !legacyJournalGone else { return }
        if await onFile("delete the restore journal row of an earlier version", { try await $0.deleteLegacyJournalRow() }) {
            legacyJournalGone = true
        }
    }

    /// Moves a journal kept in memory or in the fallback back to its file, once that can be
    /// written again. Does nothing when it is where it belongs.
    func retryJournal() async {
        if let entry = journalInMemory {
            try? await save(entry)
        } else if journalFileFailing != nil {
            let disk = onDisk()
            if let (record, file) = newest(disk), file.path == journalFallback.path { _ = put(record.entry, over: disk) }
        }
    }

    /// Writes `data` (empty: cleared) as the newest record, beside the database or else in the
    /// fallback; false when neither took it. Logs a failing journal file once. `disk` is what the
    /// caller read already (`onDisk()`), so the files are not read twice for one decision.
    private func put(_ data: Data, over disk: OnDisk? = nil) -> Bool {
        let (mine, fallback) = disk ?? onDisk()
        let sequence = max(mine?.sequence ?? 0, fallback?.sequence ?? 0) + 1
        do {
            try journal.put(data, sequence: sequence, newest: mine)
            if journalFileFailing != nil {
                logger.notice("the restore journal is written to its file again", metadata: ["file": "\(journal.path)"])
                journalFileFailing = nil
            }
            journalInMemory = nil
            if !journalFallback.remove() {  // tidiness only: its record is older now
                logger.warning("the restore journal's fallback could not be removed",
                               metadata: ["file": "\(journalFallback.path)", "error": "\(String(cString: strerror(errno)))"])
            }
            return true
        } catch {
            if journalFileFailing == nil {
                logger.error("the restore journal cannot be written to its file; using the fallback",
                             metadata: ["error": "\(error)", "fallback": "\(journalFallback.path)"])
            }
            journalFileFailing = "\(error)"
        }
        do {
            try journalFallback.put(data, sequence: sequence, newest: fallback)
            journalInMemory = nil
            return true
        } catch {
            logger.error("the restore journal's fallback cannot be written either", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// The newest whole record of each place.
    private typealias OnDisk = (mine: JournalFile.Record?, fallback: JournalFile.Record?)

    private func onDisk() -> OnDisk { (journal.newest(), journalFallback.newest()) }

    /// The newer of the two places' records, and which place holds it.
    private func newest(_ disk: OnDisk) -> (record: JournalFile.Record, file: JournalFile)? {
        [(disk.mine, journal), (disk.fallback, journalFallback)]
            .compactMap { record, file in record.map { ($0, file) } }
            .max { $0.0.sequence < $1.0.sequence }
    }

    /// A journal row an earlier version left in the database; a failed read is logged and counts
    /// as none (the log is never a reason not to speak).
    private func legacyJournal() async -> JournalEntry? {
        guard !legacyJournalGone else { return nil }
        do {
            let row = try await fileRead { try await $0.legacyJournalRow() } ?? nil
            if row == nil, degraded == nil { legacyJournalGone = true }
            return row
        } catch {
            logger.error("could not read the database for an earlier version's restore journal", metadata: ["error": "\(error)"])
            return nil
        }
    }

    // MARK: Back to the file

    /// Writes what waits in memory to the database once it can be written again (reopening it,
    /// so a removed folder is made anew), and moves a journal kept elsewhere back to its file.
    /// Does nothing when healthy.
    ///
    /// The buffer is handed off before it is copied (`memory` becomes a fresh one at once), so a
    /// row recorded or updated during the copy lands in the new buffer and is copied after it;
    /// the store is healthy again only once a look at `memory` finds it empty, with no await
    /// between that look and the switch to the file.
    /// - Returns: how many rows were written.
    @discardableResult
    public func flush() async -> Int {
        await retryJournal()
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
                    memory = Self.inMemoryDatabase()
                }
                written += try await copy(handedOff[copied], to: reopened)
                copied += 1
            }
            // Synchronous from the empty look above: nothing can land in a buffer in between.
            file = reopened
            handedOff = []
            degraded = nil
            logger.notice("the database can be written again; wrote the rows kept in memory",
                          metadata: ["rows": "\(written)", "was": "\(reason)"])
            // Again: reopening made the folder anew, so the journal's own file can take it now.
            await retryJournal()
            return written
        } catch {
            degraded = "cannot write the database \(path): \(error)"
            return 0
        }
    }

    /// Copies every row of a handed-off buffer to `target`, oldest first; returns how many.
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
        return rows.count
    }
}

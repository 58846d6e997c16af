import Foundation
import HeraldCore

extension AnnouncementStore {
    // MARK: The restore journal

    /// Stores `entry` durably: synced to the journal beside the database, else to the fallback in
    /// the runtime folder, else in memory (with a critical log line: a crash now would leave the
    /// sink as Herald set it). `retryJournal` moves it back to its place.
    public func save(_ entry: JournalEntry) async throws {
        let data = try JSONEncoder().encode(entry)
        do {
            try journal.write(data)
            journalWritten()
            return
        } catch {
            if journalFileFailing == nil {
                logger.error("the restore journal cannot be written to its file; using the fallback",
                             metadata: ["error": "\(error)", "fallback": "\(journalFallback.path)"])
            }
            journalFileFailing = "\(error)"
        }
        do {
            try journalFallback.write(data)
            journalInMemory = nil
        } catch {
            defer { journalInMemory = entry }
            guard journalInMemory == nil else { return }  // said once, not at every retry
            logger.critical("the restore journal is kept in memory only: a crash now would leave the sink raised until the next announcement",
                            metadata: ["file": "\(journalFileFailing ?? "")", "fallback": "\(error)"])
        }
    }

    /// The journal's own file took the newest entry: what was kept elsewhere is older.
    private func journalWritten() {
        if journalFileFailing != nil {
            logger.notice("the restore journal is written to its file again", metadata: ["file": "\(journal.path)"])
            journalFileFailing = nil
        }
        staleJournalFile = false
        journalInMemory = nil
        removeFallback()
    }

    /// The pending entry: the newest place first (memory, then the fallback, then the file), and
    /// last a row an earlier version of Herald left in the database.
    public func pending() async throws -> JournalEntry? {
        if let entry = journalInMemory { return entry }
        for file in staleJournalFile ? [journalFallback] : [journalFallback, journal] {
            guard let data = file.read() else { continue }
            do { return try JSONDecoder().decode(JournalEntry.self, from: data) } catch {
                logger.error("ignoring an unreadable restore journal", metadata: ["file": "\(file.path)", "error": "\(error)"])
            }
        }
        guard !legacyJournalGone else { return nil }
        let legacy = try await fileRead { try await $0.legacyJournalRow() } ?? nil
        if legacy == nil, degraded == nil { legacyJournalGone = true }
        return legacy
    }

    /// Forgets the pending entry everywhere it was kept.
    public func clear() async throws {
        journalInMemory = nil
        removeFallback()
        do {
            try journal.clear()
            staleJournalFile = false
        } catch {
            logger.error("the restore journal could not be cleared; this process ignores it from now on",
                         metadata: ["error": "\(error)"])
            staleJournalFile = true
        }
        guard !legacyJournalGone else { return }
        // A row that cannot be deleted (the database failing) is ignored by this process from now
        // on; `onFile` has logged why.
        _ = await onFile("clear the restore journal", { try await $0.deleteLegacyJournalRow() })
        legacyJournalGone = true
    }

    private func removeFallback() {
        if !journalFallback.remove() {
            logger.error("the restore journal's fallback could not be removed; it would hide newer entries",
                         metadata: ["file": "\(journalFallback.path)", "error": "\(String(cString: strerror(errno)))"])
        }
    }

    /// Moves a journal kept in memory or in the fallback back to its file, once that can be
    /// written again. Does nothing when it is where it belongs.
    func retryJournal() async {
        if let entry = journalInMemory {
            try? await save(entry)
        } else if journalFileFailing != nil, let data = journalFallback.read() {
            do {
                try journal.write(data)
                journalWritten()
            } catch {
                journalFileFailing = "\(error)"
            }
        }
    }

    // MARK: Back to the file

    /// Writes what waits in memory to the database once it can be written again (reopening it,
    /// so a removed folder is made anew), and moves a journal kept elsewhere back to its file.
    /// Does nothing when healthy.
    /// - Returns: how many rows were written.
    @discardableResult
    public func flush() async -> Int {
        await retryJournal()
        guard let reason = degraded else { return 0 }
        do {
            let reopened = try AppDatabase(path: path)
            let waiting = try await memory.announcements(since: nil, outcome: nil, limit: .max)
            for row in waiting.reversed() {
                do { try await reopened.record(row) } catch {
                    // Its request id was taken meanwhile (another process): keep the row, not the claim.
                    var unclaimed = row
                    unclaimed.requestID = nil
                    try await reopened.record(unclaimed)
                }
            }
            try await memory.deleteAll()
            file = reopened
            degraded = nil
            logger.notice("the database can be written again; wrote the rows kept in memory",
                          metadata: ["rows": "\(waiting.count)", "was": "\(reason)"])
            await retryJournal()
            return waiting.count
        } catch {
            degraded = "cannot write the database \(path): \(error)"
            return 0
        }
    }
}

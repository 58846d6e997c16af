import Foundation
import HeraldCore

extension AnnouncementStore {
    // MARK: The restore journal

    /// Stores `entry` durably: synced to the journal file beside the database, else to the
    /// fallback file in the runtime folder, else in memory (with a critical log line: a crash now
    /// would leave the sink as Herald set it).
    public func save(_ entry: JournalEntry) async throws {
        let data = try JSONEncoder().encode(entry)
        do {
            try journal.write(data)
            if journalFileFailing != nil {
                logger.notice("the restore journal is written to its file again", metadata: ["file": "\(journal.path)"])
                journalFileFailing = nil
            }
            staleJournalFile = false
            // What was kept elsewhere is older than this.
            journalInMemory = nil
            journalFallback.remove()
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
            journalInMemory = entry
            logger.critical("the restore journal is kept in memory only: a crash now would leave the sink raised until the next announcement",
                            metadata: ["file": "\(journalFileFailing ?? "")", "fallback": "\(error)"])
        }
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
        guard !staleDatabaseJournal else { return nil }
        return try await fileRead { try await $0.pending() } ?? nil
    }

    /// Forgets the pending entry everywhere it was kept.
    public func clear() async throws {
        journalInMemory = nil
        journalFallback.remove()
        do {
            try journal.clear()
            staleJournalFile = false
        } catch {
            logger.error("the restore journal could not be cleared; it is ignored from now on",
                         metadata: ["error": "\(error)"])
            staleJournalFile = true
        }
        if await onFile("clear the restore journal", { try await $0.clear() }) { return }
        staleDatabaseJournal = true
    }

    // MARK: Back to the file

    /// Writes what waits in memory to the database once it can be written again (reopening it,
    /// so a removed folder is made anew), and a journal kept elsewhere back to its file. Does
    /// nothing when healthy.
    /// - Returns: how many rows were written.
    @discardableResult
    public func flush() async -> Int {
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
            if let entry = journalInMemory {
                try await save(entry)
            } else if let data = journalFallback.read() {
                try journal.write(data)
                journalFallback.remove()
            }
            if staleDatabaseJournal { try await reopened.clear() }
            try await memory.deleteAll()
            staleDatabaseJournal = false
            file = reopened
            degraded = nil
            logger.notice("the database can be written again; wrote the rows kept in memory",
                          metadata: ["rows": "\(waiting.count)", "was": "\(reason)"])
            return waiting.count
        } catch {
            degraded = "cannot write the database \(path): \(error)"
            return 0
        }
    }
}

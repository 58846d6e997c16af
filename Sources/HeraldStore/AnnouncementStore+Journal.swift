import Foundation
import HeraldCore

extension AnnouncementStore {
    // MARK: The restore journal

    /// Stores `entry` durably: in the database, else synced to the fallback file, else in memory
    /// (with a critical log line: a crash now would leave the sink as Herald set it).
    public func save(_ entry: JournalEntry) async throws {
        if await onFile("write the restore journal", { try await $0.save(entry) }) {
            staleFileJournal = false
            return
        }
        do {
            try Self.writeSynced(JSONEncoder().encode(entry), to: journalFile)
        } catch {
            journalInMemory = entry
            logger.critical("the restore journal is kept in memory only: a crash now would leave the sink raised until the next announcement",
                            metadata: ["database": "\(degraded ?? "")", "fallback": "\(journalFile): \(error)"])
        }
    }

    /// The pending entry: the fallback's first (it is written only when the database failed).
    public func pending() async throws -> JournalEntry? {
        if let entry = journalInMemory { return entry }
        if let data = FileManager.default.contents(atPath: journalFile) {
            do { return try JSONDecoder().decode(JournalEntry.self, from: data) } catch {
                logger.error("ignoring an unreadable restore journal", metadata: ["file": "\(journalFile)", "error": "\(error)"])
            }
        }
        guard !staleFileJournal else { return nil }
        return try await fileRead { try await $0.pending() } ?? nil
    }

    /// Forgets the pending entry everywhere it was kept.
    public func clear() async throws {
        journalInMemory = nil
        if FileManager.default.fileExists(atPath: journalFile) { try FileManager.default.removeItem(atPath: journalFile) }
        if await onFile("clear the restore journal", { try await $0.clear() }) { return }
        staleFileJournal = true
    }

    // MARK: Back to the file

    /// Writes what waits in memory to the database once it can be written again (reopening it,
    /// so a removed folder is made anew), and the journal with it. Does nothing when healthy.
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
            if let entry = try await pending() {
                try await reopened.save(entry)
            } else if staleFileJournal {
                try await reopened.clear()
            }
            try await memory.deleteAll()
            journalInMemory = nil
            try? FileManager.default.removeItem(atPath: journalFile)
            staleFileJournal = false
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

    /// Writes `data` to `path` and syncs it, via a temporary file renamed over it.
    static func writeSynced(_ data: Data, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary]) }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == data.count, synced == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CocoaError(.fileWriteOutOfSpace, userInfo: [NSFilePathErrorKey: path])
        }
    }
}

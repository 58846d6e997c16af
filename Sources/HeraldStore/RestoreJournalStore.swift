import Executors
import Foundation
import HeraldCore
import Logging

/// The restore journal as the daemon keeps it: durable before a sink is touched, whatever the
/// disk does. One record holds the entry of every sink a safeguard has open (an announcement to
/// several rooms), so one synced write covers a change to any of them.
///
/// Two places on disk, the journal beside the database and the fallback in the runtime folder,
/// numbered in one sequence: the newest record of either is the journal, so an older record left in
/// the other place (one that could not be removed) never hides it. When neither can be written the
/// entry is kept in memory, with a critical log line, and `retry()` moves it back to its place.
public actor RestoreJournalStore: RestoreJournal {
    /// A serial dispatch queue of its own: the journal's synced writes block, and on the
    /// cooperative pool (one thread per core) a stalled disk would hold up the API and the sound
    /// connection with them; apart from the log's, so a journal write never waits behind a row.
    private static let executor = DispatchQueueExecutor(label: "herald-journal")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { Self.executor.asUnownedSerialExecutor() }

    /// The journal beside the database (`<database>.restore-journal.0` and `.1`).
    let journal: JournalFile
    /// Where the journal goes while `journal` cannot be written (the runtime folder).
    let journalFallback: JournalFile
    /// The journal (every sink's entry) when neither `journal` nor `journalFallback` could be written.
    var journalInMemory: [JournalEntry]?
    /// Why `journal` could not be written last time (logged once), or nil.
    var journalFileFailing: String?
    /// The database, until a journal row an earlier version may have left in it is taken over
    /// (at the first call: an actor's synchronous init cannot call its methods).
    var legacySource: AppDatabase?
    let logger: Logger

    /// The journal of the database at `databasePath`.
    /// - Parameters:
    ///   - fallback: where the journal goes when the one beside the database cannot be written
    ///     (the runtime directory: it survives a crash of the daemon).
    ///   - database: the opened database, when it could be: a journal row an earlier version of
    ///     Herald left in it is taken over into the journal's file, once, before the first use.
    public init(databasePath: String, fallback: String, database: AppDatabase?, logger: Logger) {
        journal = JournalFile(path: databasePath + ".restore-journal", makesFolder: false)
        journalFallback = JournalFile(path: fallback, makesFolder: true)
        self.logger = logger
        legacySource = database
    }

    /// Stores `entry` as its sink's, durably: synced to the journal beside the database, else to
    /// the fallback in the runtime folder, else in memory (with a critical log line: a crash now
    /// would leave the sink as Herald set it). `retry` moves it back to its place.
    public func save(_ entry: JournalEntry) async throws {
        takeOverLegacyRow()
        // The files read once for both the entries and the next sequence number: this write is
        // on the way to every first word that raises a sink.
        let disk = onDisk()
        try saveNow(current(disk).filter { $0.sinkName != entry.sinkName } + [entry], over: disk)
    }

    private func saveNow(_ entries: [JournalEntry], over disk: OnDisk? = nil) throws {
        let data = try JSONEncoder().encode(entries.sorted { $0.sinkName < $1.sinkName })
        if put(data, over: disk) { return }
        defer { journalInMemory = entries }
        guard journalInMemory == nil else { return }  // said once, not at every retry
        logger.critical("the restore journal is kept in memory only: a crash now would leave the sink raised until the next announcement",
                        metadata: ["file": "\(journalFileFailing ?? "")", "fallback": "\(journalFallback.path)"])
    }

    /// Every sink's pending entry, by sink name.
    public func pending() async throws -> [JournalEntry] {
        takeOverLegacyRow()
        return current().sorted { $0.sinkName < $1.sinkName }
    }

    /// Memory's entries, else the newest record on disk's. A record that does not decode is logged
    /// and skipped. A record of an earlier version holds one entry, not a list.
    private func current(_ disk: OnDisk? = nil) -> [JournalEntry] {
        if let entries = journalInMemory { return entries }
        guard let (record, file) = newest(disk ?? onDisk()), !record.entry.isEmpty else { return [] }  // none, or cleared
        let decoder = JSONDecoder()
        if let entries = try? decoder.decode([JournalEntry].self, from: record.entry) { return entries }
        do { return [try decoder.decode(JournalEntry.self, from: record.entry)] } catch {
            logger.error("ignoring an unreadable restore journal",
                         metadata: ["file": "\(file.slotPath(record.slot))", "error": "\(error)"])
            return []
        }
    }

    /// Forgets `sinkName`'s entry; with none left, a synced "cleared" record newer than any entry.
    public func clear(sinkName: String) async throws {
        takeOverLegacyRow()
        let disk = onDisk()
        let entries = current(disk)
        let left = entries.filter { $0.sinkName != sinkName }
        // Not this sink's to clear (restored already): another write would only cost a sync.
        if !left.isEmpty && left.count == entries.count { return }
        guard left.isEmpty else { return try saveNow(left, over: disk) }
        journalInMemory = nil
        if let (record, _) = newest(disk), !record.entry.isEmpty, !put(Data(), over: disk) {
            logger.error("the restore journal could not be cleared: the next start restores this announcement's changes again (only what still equals what Herald set)")
        }
    }

    /// Moves a journal kept in memory or in the fallback back to its file, once that can be
    /// written again. Does nothing when it is where it belongs.
    public func retry() {
        takeOverLegacyRow()
        if let entries = journalInMemory {
            try? saveNow(entries)
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

    /// Moves a journal row an earlier version left in the database into the journal's file (or
    /// memory), unless a record on disk is there already (then the row is older: it predates the
    /// files), and deletes the row once the entry is safe elsewhere. A failure is logged; the row
    /// then stays for the next start.
    private func takeOverLegacyRow() {
        guard let database = legacySource else { return }
        do {
            // Looked at again next time when the read fails (the database busy, say).
            guard let entry = try database.legacyJournalRowNow() else {
                legacySource = nil
                return
            }
            legacySource = nil
            if newest(onDisk()) == nil {
                try saveNow([entry])
                logger.notice("took over the restore journal an earlier version left in the database")
            }
            // Kept in memory only, the row is still the one durable copy.
            if journalInMemory == nil { try database.deleteLegacyJournalRowNow() }
        } catch {
            logger.error("could not take over an earlier version's restore journal from the database", metadata: ["error": "\(error)"])
        }
    }
}

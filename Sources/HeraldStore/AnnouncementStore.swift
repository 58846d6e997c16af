import Foundation
import Executors
import GRDB
import HeraldCore
import Logging

/// The announcement log as the daemon uses it, safety first: the log is never a reason not to speak.
///
/// Rows go to the SQLite file while it can be written. When it cannot (its folder removed, the disk
/// full, a read-only or corrupt file), they go to a buffer of the same schema, a file in the runtime
/// folder when the daemon gives one (`overflowPrefix`, see `AnnouncementStore+Overflow`) or memory,
/// and `degraded` says why. `flush()` hands that buffer off and writes it to the file once the file is
/// usable again. Reads see both (and the rows on their way from one to the other). The restore
/// journal is kept apart, by `RestoreJournalStore`.
public actor AnnouncementStore {
    /// A serial dispatch queue beside the cooperative pool: SQLite's synced writes block, and on
    /// the pool (one thread per core) a stalled disk would hold up the API and the sound
    /// connection with them.
    private static let executor = DispatchQueueExecutor(label: "herald-store")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { Self.executor.asUnownedSerialExecutor() }

    /// The SQLite file; nil while it cannot be opened.
    var file: AppDatabase?
    let path: String
    /// Rows written while the file could not be: same schema, so every query works on both.
    /// Written without an await (`recordNow`), so `flush` can hand it off in one step: a write
    /// that suspended could land in it after `flush` copied it.
    var memory: AppDatabase
    /// Buffers `flush` took from `memory` (oldest first) and is copying to the file: read-only,
    /// and still read, until every one of them is in the file.
    var handedOff: [AppDatabase] = []
    /// A flush is under way (the actor is open to other calls while it awaits the disk).
    var flushing = false
    let logger: Logger
    /// Why the log is not being written to its file, or nil when it is.
    public internal(set) var degraded: String?
    /// Where buffers are kept as files (`<prefix>.<pid>.<n>.sqlite`), or nil for memory only.
    let overflowPrefix: String?
    /// The number of the last overflow file this process made.
    var overflowSerial = 0
    /// Tests only: called by `flush` after each row it copied to the file, while it still holds
    /// the actor open to other calls (a slow disk, made observable).
    var flushObserver: (@Sendable (AnnouncementRecord) async -> Void)?

    /// Tests only: see `flushObserver`.
    func observeFlush(_ observer: (@Sendable (AnnouncementRecord) async -> Void)?) { flushObserver = observer }

    /// The log over `opened`, the file at `path` (or why it could not be opened: the store then
    /// starts degraded, in a buffer, and `flush` keeps trying to open it).
    /// - Parameter overflowPrefix: where rows the file cannot take are kept, as files that survive
    ///   a crash (the daemon's runtime folder); nil keeps them in memory. Files a stopped process
    ///   left there are read at once and written to the database by the next `flush`.
    public init(path: String, opened: Result<AppDatabase, any Error>, overflowPrefix: String? = nil, logger: Logger) {
        self.path = path
        self.logger = logger
        self.overflowPrefix = overflowPrefix
        let left = overflowPrefix.map(Self.leftOverflow(prefix:)) ?? []
        handedOff = left
        // A buffer from the start when rows already wait: it may take more before the first flush.
        let buffered = !left.isEmpty || (try? opened.get()) == nil
        memory = buffered ? Self.makeBuffer(prefix: overflowPrefix, serial: 1, logger: logger) : Self.inMemoryDatabase()
        overflowSerial = buffered ? 1 : 0
        switch opened {
        case .success(let database):
            file = database
            if !left.isEmpty {
                degraded = "rows a stopped process kept in the runtime folder are not in the database yet"
                logger.notice("found announcements kept in the runtime folder by a process that stopped; writing them to the database",
                              metadata: ["files": "\(left.count)"])
            }
        case .failure(let error):
            degraded = "\(error)"
            logger.error("announcements are logged outside the database until it can be written", metadata: ["reason": "\(error)"])
        }
    }

    /// An in-memory log, for tests and for a clip cache index when the file cannot be opened.
    public static func inMemoryDatabase() -> AppDatabase {
        try! AppDatabase(DatabaseQueue())  // An in-memory migration cannot fail but for a bug.
    }

    /// Runs a write on the file while it is healthy; on failure turns degraded and returns false.
    func onFile(_ action: String, _ body: (AppDatabase) async throws -> Void) async -> Bool {
        guard degraded == nil, let file else { return false }
        do {
            try await body(file)
            return true
        } catch {
            degrade("could not \(action): \(error)")
            return false
        }
    }

    private func degrade(_ reason: String) {
        // Healthy until now, so the buffer is empty: from here on it is a file that outlives a crash.
        if degraded == nil, !Self.isFile(memory), (try? memory.isEmptyNow()) == true {
            memory = makeBuffer()
        }
        if degraded == nil {
            logger.error("the database cannot be written; announcements still play and are kept aside until it can",
                         metadata: ["path": "\(path)", "reason": "\(reason)"])
        }
        degraded = reason
    }

    // MARK: The log

    /// Inserts a new row; false when its (source, client, request id) was seen already.
    /// A file that cannot be read or written does not make it fail: the row goes to memory.
    public func insertIfNew(_ record: AnnouncementRecord) async throws -> Bool {
        // The file's unique index refuses a request id it holds: only the rows still waiting in
        // memory (a failing disk) are looked at first, as the file cannot see them.
        if let requestID = record.requestID {
            for buffer in buffers where (try? await buffer.announcement(source: record.source, client: record.client,
                                                                        requestID: requestID)) ?? nil != nil {
                return false
            }
        }
        var inserted = false
        if await onFile("log an announcement", { inserted = try await $0.insertIfNew(record) }) { return inserted }
        // No await from the look to the insert: a claim on its way to the file is still a claim.
        if let requestID = record.requestID,
           try handedOff.contains(where: { try $0.claimsNow(source: record.source, client: record.client, requestID: requestID) }) {
            return false
        }
        return try memory.insertNowIfNew(record)
    }

    /// Inserts or replaces the row with `record.id`.
    public func record(_ record: AnnouncementRecord) async throws {
        if await onFile("log an announcement", { try await $0.record(record) }) { return }
        // An update of a row `flush` is copying lands here, newer, and reaches the file after it.
        try memory.recordNow(record)
    }

    /// The rows not in the file yet, newest first: `memory`, then what `flush` is copying.
    var buffers: [AppDatabase] { [memory] + handedOff.reversed() }

    public func announcement(id: String) async throws -> AnnouncementRecord? {
        for buffer in buffers { if let waiting = try await buffer.announcement(id: id) { return waiting } }
        return try await file?.announcement(id: id)
    }

    public func announcement(source: AnnouncementSource, client: String, requestID: String) async throws -> AnnouncementRecord? {
        for buffer in buffers {
            if let waiting = try await buffer.announcement(source: source, client: client, requestID: requestID) { return waiting }
        }
        return try await fileRead { try await $0.announcement(source: source, client: client, requestID: requestID) } ?? nil
    }

    /// The announcement that carried the signature whose HMAC is `mac`, in the file or a buffer.
    public func announcement(signatureMAC mac: String) async throws -> AnnouncementRecord? {
        for buffer in buffers { if let waiting = try await buffer.announcement(signatureMAC: mac) { return waiting } }
        return try await fileRead { try await $0.announcement(signatureMAC: mac) } ?? nil
    }

    /// Whether a signature whose HMAC is `mac` was recorded by `recordUsedSignature` and has not
    /// expired, in the file or a buffer.
    public func signatureRecorded(_ mac: String, now: Date = Date()) async throws -> Bool {
        for buffer in buffers where try buffer.signatureUsedNow(mac, now: now) { return true }
        return try await fileRead { try $0.signatureUsedNow(mac, now: now) } ?? false
    }

    /// Keeps a signature that no announcement row will carry (a signed reminder's) until `expiry`.
    public func recordUsedSignature(_ mac: String, until expiry: Date, now: Date = Date()) async throws {
        if await onFile("record a used signature", { try $0.recordUsedSignatureNow(mac, until: expiry, now: now) }) { return }
        try memory.recordUsedSignatureNow(mac, until: expiry, now: now)
    }

    /// Rows accepted but never finished, oldest first.
    public func unfinished() async throws -> [AnnouncementRecord] {
        var rows = try await fileRead { try await $0.unfinished() } ?? []
        // Oldest buffer first, so a newer copy of a row replaces an older one; a row finished in a
        // newer buffer drops out.
        for buffer in buffers.reversed() {
            let finished = Set(try await buffer.announcements(since: nil, outcome: nil, limit: .max).map(\.id))
            rows = merged(rows.filter { !finished.contains($0.id) }, try await buffer.unfinished())
        }
        return rows.sorted { $0.queuedAt < $1.queuedAt }
    }

    /// Rows newest first, optionally since a date and with one outcome.
    public func announcements(since: Date?, outcome: Outcome?, limit: Int) async throws -> [AnnouncementRecord] {
        var rows = try await fileRead { try await $0.announcements(since: since, outcome: outcome, limit: limit) } ?? []
        for buffer in buffers.reversed() {
            let newer = try await buffer.announcements(since: nil, outcome: nil, limit: .max)
            let newIDs = Set(newer.map(\.id))
            rows = rows.filter { !newIDs.contains($0.id) }
                + newer.filter { row in (since.map { row.queuedAt >= $0 } ?? true) && (outcome.map { row.outcome == $0 } ?? true) }
        }
        return Array(rows.sorted { $0.queuedAt > $1.queuedAt }.prefix(limit))
    }

    public func recent(limit: Int) async throws -> [AnnouncementRecord] {
        try await announcements(since: nil, outcome: nil, limit: limit)
    }

    /// Forgets request ids older than `days`, so they may be used again.
    public func expireRequestIDs(olderThan days: Int, now: Date) async throws {
        _ = await onFile("expire request ids") { try await $0.expireRequestIDs(olderThan: days, now: now) }
        // Not the buffers `flush` is copying (read-only): their ids expire in the file, next time.
        // This one may be handed off during the await; an expiry lost so is made again later.
        try await memory.expireRequestIDs(olderThan: days, now: now)
    }

    /// Reads the file when there is one; a failed read (the file gone) counts as nothing there.
    func fileRead<T>(_ body: (AppDatabase) async throws -> T) async throws -> T? {
        guard let file else { return nil }
        do { return try await body(file) } catch {
            guard degraded != nil else { throw error }
            return nil
        }
    }

    /// `older` with the rows of `newer` in place of those with the same id.
    private func merged(_ older: [AnnouncementRecord], _ newer: [AnnouncementRecord]) -> [AnnouncementRecord] {
        let newIDs = Set(newer.map(\.id))
        return older.filter { !newIDs.contains($0.id) } + newer
    }
}

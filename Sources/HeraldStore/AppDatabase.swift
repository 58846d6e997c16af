import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GRDB
import HeraldCore
import RuntimePaths

/// The database file cannot be used where it is: which file, and why, in an admin's words.
public struct DatabaseLocationError: Error, CustomStringConvertible {
    public var path: String
    public var problem: String

    public var description: String {
        "the database \(path) cannot be used: \(problem); point database.path at a writable disk, or fix the folder's permissions"
    }
}

/// Herald's SQLite file: the announcement log, the clip cache index, the reminders and the MQTT
/// events the broker has not taken yet (the restore journal has a file of its own, `JournalFile`).
///
/// Migrates in its initializer. Writes are synced (`synchronous = FULL`, a rollback journal
/// truncated after each commit instead of deleted and made again: no unlink per commit), so
/// a logged row survives a crash. Not WAL: with the
/// log open, a state folder removed under the daemon would take writes without an error and lose
/// them, where a rollback journal cannot be opened and the daemon degrades and keeps the rows.
/// Several processes (the daemon and a CLI run) may open the same file; they wait for each
/// other's write locks.
public struct AppDatabase: Sendable {
    let writer: any DatabaseWriter

    /// Opens (creating it and its folder if needed) and migrates the database at `path`.
    ///
    /// What it creates is private: folders 0700, the file 0600, and so SQLite's journal beside it
    /// (SQLite gives a journal the mode of its database). What exists keeps its mode.
    public init(path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try PrivateFiles.makeFolder(folder)
        } catch {
            throw DatabaseLocationError(path: path, problem: "its folder \(folder) cannot be made (\(Self.reason(writing: folder)))")
        }
        // Checked before SQLite opens it: on a read-only disk SQLite falls back to reading, and the
        // failure would surface later as a misleading one about the migration lock.
        for target in [folder, path] where access(target, F_OK) == 0 && access(target, W_OK) != 0 {
            throw DatabaseLocationError(path: path, problem: "\(target) cannot be written (\(String(cString: strerror(errno))))")
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA journal_mode = TRUNCATE")
        }
        // Made empty here, 0600, so SQLite does not make it with its own mode (0644 less the umask).
        if access(path, F_OK) != 0, let descriptor = try? PrivateFiles.open(path, flags: O_EXCL) { close(descriptor) }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        // Two processes opening a new file at once would both create the tables; GRDB's migrator
        // does not guard against another process, so an exclusive lock file serializes migrations.
        self.writer = queue
        try Self.withMigrationLock(database: path) { try Self.migrator.migrate(queue) }
    }

    /// Why `folder` (or the nearest folder above it that exists) cannot be written.
    private static func reason(writing folder: String) -> String {
        var existing = folder
        while access(existing, F_OK) != 0, existing != "/" { existing = (existing as NSString).deletingLastPathComponent }
        return access(existing, W_OK) == 0 ? "\(existing) is writable; check the path" : "\(existing): \(String(cString: strerror(errno)))"
    }

    private static func withMigrationLock(database: String, _ body: () throws -> Void) throws {
        let path = database + ".migrate-lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, PrivateFiles.fileMode)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        defer { close(descriptor) }  // Closing releases the lock.
        try lockExclusively(descriptor, database: database)
        try body()
    }

    /// Waits for an exclusive lock on `descriptor`. A signal that interrupts the wait (EINTR) does
    /// not let the migration run unlocked: the wait goes on; any other failure is thrown.
    /// - Parameter take: `flock(2)`; another function in tests.
    static func lockExclusively(_ descriptor: Int32, database: String,
                                take: (Int32, Int32) -> Int32 = { flock($0, $1) }) throws(DatabaseLocationError) {
        while take(descriptor, LOCK_EX) != 0 {
            let error = errno
            guard error == EINTR else {
                throw DatabaseLocationError(path: database, problem: "its migration lock \(database).migrate-lock cannot be taken (\(String(cString: strerror(error))))")
            }
        }
    }

    /// Wraps an open database (an in-memory queue in tests) and migrates it.
    public init(_ writer: any DatabaseWriter) throws {
        self.writer = writer
        try Self.migrator.migrate(writer)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: announcement log and restore journal") { db in
            try db.create(table: "announcement") { t in
                t.primaryKey("id", .text)
                t.column("request_id", .text)
                t.column("source", .text).notNull()
                t.column("priority", .text).notNull()
                t.column("body_kind", .text).notNull()
                t.column("body", .text).notNull()
                t.column("language", .text)
                t.column("voice", .text)
                t.column("clip_source", .text)
                t.column("sink", .text)
                t.column("muted_before", .boolean)
                t.column("volume_before", .jsonText)
                t.column("volume_played", .jsonText)
                t.column("streams_ducked", .integer).notNull().defaults(to: 0)
                t.column("queued_at", .datetime).notNull().indexed()
                t.column("started_at", .datetime)
                t.column("finished_at", .datetime)
                t.column("onset_latency_milliseconds", .integer)
                t.column("duration_milliseconds", .integer)
                t.column("outcome", .text)
                t.column("error", .text)
            }
            try db.create(table: "restore_journal") { t in
                // One row at most: only one process holds the safeguard.
                t.primaryKey("id", .integer).check { $0 == 1 }
                t.column("entry", .jsonText).notNull()
                t.column("written_at", .datetime).notNull()
            }
        }
        migrator.registerMigration("v2: clip cache index") { db in
            try db.create(table: "cached_clip") { t in
                t.primaryKey("key", .text)
                // Everything that changes the sound, spelled out: a hash collision cannot serve
                // the wrong clip.
                t.column("material", .text).notNull()
                t.column("file", .text).notNull()
                t.column("bytes", .integer).notNull()
                t.column("duration_milliseconds", .integer).notNull()
                t.column("hits", .integer).notNull().defaults(to: 0)
                t.column("created_at", .datetime).notNull()
                t.column("last_used_at", .datetime).notNull().indexed()
            }
            try db.create(table: "counter") { t in
                t.primaryKey("name", .text)
                t.column("value", .integer).notNull()
            }
        }
        migrator.registerMigration("v3: exactly-once request ids") { db in
            // A request id is unique per source; repeats answer with the original.
            try db.create(index: "announcement_request", on: "announcement", columns: ["source", "request_id"],
                          unique: true, condition: Column("request_id") != nil)
        }
        migrator.registerMigration("v4: request ids scoped per client") { db in
            // One till's token must not claim (and so silence) another till's ids.
            try db.alter(table: "announcement") { t in t.add(column: "client", .text).notNull().defaults(to: "") }
            try db.drop(index: "announcement_request")
            try db.create(index: "announcement_request", on: "announcement", columns: ["source", "client", "request_id"],
                          unique: true, condition: Column("request_id") != nil)
        }
        migrator.registerMigration("v5: reminders") { db in
            try db.alter(table: "announcement") { t in t.add(column: "reminder_id", .text).indexed() }
            try db.create(table: "reminder") { t in
                t.primaryKey("id", .text)
                // The reminder as the API shows it: one shape to read, write and answer.
                t.column("definition", .jsonText).notNull()
                t.column("origin", .text).notNull()
                t.column("next_due", .datetime).indexed()
                t.column("waiting", .jsonText)
                t.column("created_at", .datetime).notNull()
            }
            try db.create(table: "reminder_ack") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("reminder_id", .text).notNull().indexed()
                t.column("due_at", .datetime).notNull()
                t.column("acked_at", .datetime).notNull()
                t.column("acked_by", .text).notNull()
            }
            try db.create(table: "escalation") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("reminder_id", .text).notNull().indexed()
                t.column("due_at", .datetime).notNull()
                t.column("reason", .text).notNull()
                t.column("url", .text).notNull()
                t.column("attempts", .integer).notNull()
                t.column("delivered_at", .datetime)
                t.column("error", .text)
            }
        }
        migrator.registerMigration("v6: escalations outlive a stop") { db in
            // The JSON to send, kept so a delivery cut off by a stop is resumed at the next start;
            // `given_up` once every attempt failed.
            try db.alter(table: "escalation") { t in
                t.add(column: "body", .text)
                t.add(column: "given_up", .boolean).notNull().defaults(to: false)
            }
        }
        migrator.registerMigration("v7: the secret that signed an announcement") { db in
            try db.alter(table: "announcement") { t in t.add(column: "signed_by", .text) }
        }
        migrator.registerMigration("v8: payment amounts in integer minor units") { db in
            try db.alter(table: "announcement") { t in
                t.add(column: "amount_minor_units", .integer)
                t.add(column: "amount_currency", .text)
            }
            // Until now the body text (`25.30 USD`) was the only record of a payment. Rows from
            // before the currency was logged (`25.30`) keep only the text: their digits mean
            // nothing without it, and a requeue reads them in the configured currency.
            let payments = try Row.fetchAll(db, sql: "SELECT id, body FROM announcement WHERE body_kind = 'payment'")
            for row in payments {
                let body: String = row["body"]
                // The fallback is never used: only a body that names its currency is converted.
                guard body.contains(" "), let amount = try? Amount.parse(logged: body, fallback: .usd) else { continue }
                try db.execute(sql: "UPDATE announcement SET amount_minor_units = ?, amount_currency = ? WHERE id = ?",
                               arguments: [amount.minorUnits, amount.currency.code, row["id"] as String])
            }
        }
        migrator.registerMigration("v9: MQTT events kept until the broker has them") { db in
            try db.create(table: "event_outbox") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("topic", .text).notNull()
                t.column("payload", .blob).notNull()
                t.column("held_at", .datetime).notNull()
            }
        }
        migrator.registerMigration("v10: rooms") { db in
            // JSON lists: the names asked for, and one outcome per room.
            try db.alter(table: "announcement") { t in
                t.add(column: "requested_rooms", .text)
                t.add(column: "rooms", .text)
            }
        }
        migrator.registerMigration("v11: used signatures") { db in
            // The log is the record of used signatures: a captured signed request sent again after
            // a restart finds its first use here. Not unique: a retry of the same request (same
            // request id) may carry the same signature, and the dedup answers it.
            try db.alter(table: "announcement") { t in t.add(column: "signature_mac", .text) }
            try db.create(index: "announcement_signature", on: "announcement", columns: ["signature_mac"],
                          condition: Column("signature_mac") != nil)
        }
        migrator.registerMigration("v12: signatures no row carries") { db in
            // A signed reminder is said later: its signature is kept here until it expires.
            try db.create(table: "used_signature") { t in
                t.primaryKey("mac", .text)
                t.column("expires_at", .datetime).notNull()
            }
        }
        migrator.registerMigration("v13: buttons") { db in
            // Every press, with what it did: the log a caregiver or shop owner reads back.
            try db.create(table: "button_press") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("at", .datetime).notNull().indexed()
                t.column("button", .text).notNull()
                t.column("event", .text).notNull()
                t.column("action", .text)
                t.column("result", .text).notNull()
                t.column("detail", .text).notNull()
            }
            // What a replay says again: a payment replayed is not counted twice in the day's total.
            try db.alter(table: "announcement") { t in t.add(column: "replay_of", .text) }
            // A room's volume as its buttons set it, over the config's target_volume.
            try db.create(table: "room_volume") { t in
                t.primaryKey("room", .text)
                t.column("percent", .integer).notNull()
            }
        }
        registerKeptAudio(in: &migrator)
        return migrator
    }
}

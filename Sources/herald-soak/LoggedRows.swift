import Foundation
import GRDB

/// One row of Herald's announcement log, as the checker reads it from the SQLite file.
struct LoggedRow {
    var id: String
    var source: String
    var requestID: String?
    var outcome: String?
    var sink: String?
    var queuedAt: Date
    var startedAt: Date?
    var finishedAt: Date?
    var reminderID: String?
    var body: String

    /// Heard, by Herald's own account.
    var played: Bool { outcome == "played" || outcome == "late" }
    static let finalOutcomes: Set<String> = ["played", "late", "interrupted", "suppressed_muted", "coalesced", "duplicate",
                                             "failed", "dropped_stale", "missed", "suppressed_quiet"]
    var final: Bool { outcome.map(Self.finalOutcomes.contains) ?? false }

    /// Every row of the log at `path` (read-only, beside the running daemon).
    static func read(_ path: String) throws -> [LoggedRow] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        return try queue.read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, source, request_id, outcome, sink, queued_at, started_at, finished_at, reminder_id, body
                FROM announcement
                """).map { row in
                LoggedRow(id: row["id"], source: row["source"], requestID: row["request_id"], outcome: row["outcome"],
                          sink: row["sink"], queuedAt: row["queued_at"], startedAt: row["started_at"],
                          finishedAt: row["finished_at"], reminderID: row["reminder_id"], body: row["body"] ?? "")
            }
        }
    }
}

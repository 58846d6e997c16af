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
    /// Each room's outcome and sink (a house with rooms); nil in a house of one sink.
    var rooms: [(room: String, sink: String?, outcome: String)]?

    /// Heard, by Herald's own account: everywhere, or in some rooms.
    var played: Bool { outcome == "played" || outcome == "late" || outcome == "partial" }
    /// The sinks it was heard on, by Herald's own account.
    var playedSinks: [String] { sinks(where: { $0 == "played" }) }
    /// The sinks it was begun on, heard to its end or cut off (an interrupted room was asked for too).
    var begunSinks: [String] { sinks(where: { $0 == "played" || $0 == "interrupted" }) }

    private func sinks(where counts: (String) -> Bool) -> [String] {
        guard let rooms else { return sink.map { [$0] } ?? [] }
        var sinks: [String] = []
        for room in rooms where counts(room.outcome) { if let sink = room.sink, !sinks.contains(sink) { sinks.append(sink) } }
        return sinks
    }
    static let finalOutcomes: Set<String> = ["played", "late", "interrupted", "suppressed_muted", "coalesced", "duplicate",
                                             "failed", "dropped_stale", "missed", "suppressed_quiet", "partial"]
    var final: Bool { outcome.map(Self.finalOutcomes.contains) ?? false }

    /// Every row of the log at `path` (read-only, beside the running daemon).
    static func read(_ path: String) throws -> [LoggedRow] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        return try queue.read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, source, request_id, outcome, sink, queued_at, started_at, finished_at, reminder_id, body, rooms
                FROM announcement
                """).map { row in
                LoggedRow(id: row["id"], source: row["source"], requestID: row["request_id"], outcome: row["outcome"],
                          sink: row["sink"], queuedAt: row["queued_at"], startedAt: row["started_at"],
                          finishedAt: row["finished_at"], reminderID: row["reminder_id"], body: row["body"] ?? "",
                          rooms: Self.rooms(row["rooms"]))
            }
        }
    }

    /// The `rooms` column's JSON list of `{room, sink, outcome}`.
    private static func rooms(_ json: String?) -> [(room: String, sink: String?, outcome: String)]? {
        guard let json, let list = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] else { return nil }
        return list.map { ($0["room"] as? String ?? "", $0["sink"] as? String, $0["outcome"] as? String ?? "") }
    }
}

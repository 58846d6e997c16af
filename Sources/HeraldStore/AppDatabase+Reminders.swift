import Foundation
import GRDB
import HeraldCore

/// A reminder with the scheduler's state, as stored.
public struct StoredReminder: Sendable, Equatable {
    public var reminder: Reminder
    public var state: ReminderState

    public init(reminder: Reminder, state: ReminderState) {
        self.reminder = reminder
        self.state = state
    }
}

/// One acknowledgement: who answered which occurrence, and when.
public struct ReminderAck: Sendable, Codable, Equatable {
    public var reminderID: String
    public var dueAt: Date
    public var ackedAt: Date
    public var ackedBy: String

    enum CodingKeys: String, CodingKey {
        case reminderID = "reminder_id", dueAt = "due_at", ackedAt = "acked_at", ackedBy = "acked_by"
    }

    public init(reminderID: String, dueAt: Date, ackedAt: Date, ackedBy: String) {
        self.reminderID = reminderID
        self.dueAt = dueAt
        self.ackedAt = ackedAt
        self.ackedBy = ackedBy
    }
}

extension ReminderAck: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "reminder_ack"
}

/// One webhook delivery (or the attempts at it).
public struct EscalationRecord: Sendable, Codable, Equatable {
    public var id: Int64?
    public var reminderID: String
    public var dueAt: Date
    public var reason: String
    public var url: String
    public var attempts: Int
    public var deliveredAt: Date?
    public var error: String?
    /// The JSON body the webhook receives.
    public var body: String?
    /// True once every attempt failed; a row neither delivered nor given up is resumed at start.
    public var givenUp: Bool

    enum CodingKeys: String, CodingKey {
        case id, reason, url, attempts, error, body
        case reminderID = "reminder_id", dueAt = "due_at", deliveredAt = "delivered_at", givenUp = "given_up"
    }

    public init(reminderID: String, dueAt: Date, reason: String, url: String, body: String? = nil) {
        self.reminderID = reminderID
        self.dueAt = dueAt
        self.reason = reason
        self.url = url
        self.body = body
        attempts = 0
        givenUp = false
    }
}

extension EscalationRecord: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "escalation"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// The `reminder` table's row.
private struct ReminderRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "reminder"
    var id: String
    var definition: Reminder
    var origin: String
    var next_due: Date?
    var waiting: ReminderState.Waiting?
    var created_at: Date

    init(_ stored: StoredReminder) {
        id = stored.reminder.id
        definition = stored.reminder
        origin = stored.reminder.origin.rawValue
        next_due = stored.state.nextDue
        waiting = stored.state.waiting
        created_at = stored.reminder.createdAt
    }

    var stored: StoredReminder { StoredReminder(reminder: definition, state: ReminderState(nextDue: next_due, waiting: waiting)) }
}

extension AppDatabase {
    /// Every reminder, oldest first.
    public func reminders() async throws -> [StoredReminder] {
        try await writer.read { db in try ReminderRow.order(Column("created_at"), Column("id")).fetchAll(db).map(\.stored) }
    }

    public func reminder(id: String) async throws -> StoredReminder? {
        try await writer.read { db in try ReminderRow.fetchOne(db, key: id)?.stored }
    }

    /// Inserts or replaces a reminder with its state.
    public func saveReminder(_ stored: StoredReminder) async throws {
        try await writer.write { db in try ReminderRow(stored).save(db) }
    }

    /// Writes the scheduler's state of reminders (only those still there: one deleted meanwhile stays deleted).
    public func saveReminderStates(_ states: [String: ReminderState]) async throws {
        try await writer.write { db in
            for (id, state) in states {
                guard var row = try ReminderRow.fetchOne(db, key: id) else { continue }
                row.next_due = state.nextDue
                row.waiting = state.waiting
                try row.update(db)
            }
        }
    }

    /// Deletes a reminder; false when there was none.
    @discardableResult
    public func deleteReminder(id: String) async throws -> Bool {
        try await writer.write { db in try ReminderRow.deleteOne(db, key: id) }
    }

    /// Puts the config file's reminders in place: new ones added, changed ones replaced (their
    /// state kept when the schedule is the same), ones gone from the file removed.
    public func syncConfigReminders(_ reminders: [Reminder], now: Date) async throws {
        try await writer.write { db in
            let existing = try ReminderRow.filter(Column("origin") == Reminder.Origin.config.rawValue).fetchAll(db)
            let wanted = Set(reminders.map(\.id))
            for row in existing where !wanted.contains(row.id) { try row.delete(db) }
            for reminder in reminders {
                if let old = existing.first(where: { $0.id == reminder.id }) {
                    var kept = reminder
                    kept.createdAt = old.created_at
                    var stored = old.stored
                    if old.definition.schedule != reminder.schedule || old.definition.timeZone != reminder.timeZone {
                        stored.state = ReminderScheduler.initialState(for: reminder, now: now)
                    }
                    stored.reminder = kept
                    try ReminderRow(stored).save(db)
                } else {
                    try ReminderRow(StoredReminder(reminder: reminder, state: ReminderScheduler.initialState(for: reminder, now: now))).insert(db)
                }
            }
        }
    }

    /// A calendar's planned firings (`calendar:<name>:...` ids, each a one-shot at its moment)
    /// in place of what its last read planned: a firing planned again keeps its state (said once
    /// across reads, restarts and reloads); one whose moment moved starts afresh at the new
    /// moment. One no longer planned goes when it is still ahead (its event deleted or moved);
    /// one that came due stays while the scheduler has not handled it (said late or logged
    /// missed first) or it waits for an acknowledgement, and a handled one stays
    /// `calendarTombstone` after its moment, so a later read with a longer grace (or a clock set
    /// back) finds it handled and does not say it again. `firings` empty and `calendar` nil:
    /// every calendar's rows but those of `keeping` go (calendars removed from the config).
    public func syncCalendarFirings(calendar: String?, _ firings: [(reminder: Reminder, at: Date)], keeping: Set<String> = [],
                                    now: Date) async throws {
        try await writer.write { db in
            let prefix = calendar.map { "calendar:\($0):" } ?? "calendar:"
            let existing = try ReminderRow.filter(Column("origin") == Reminder.Origin.calendar.rawValue)
                .filter(Column("id").like(prefix + "%")).fetchAll(db)
            let wanted = Dictionary(firings.map { ($0.reminder.id, $0) }, uniquingKeysWith: { first, _ in first })
            for row in existing where wanted[row.id] == nil {
                if calendar == nil, let name = row.id.split(separator: ":").dropFirst().first, keeping.contains(String(name)) {
                    continue
                }
                let stored = row.stored, state = stored.state
                if calendar != nil {
                    if state.waiting != nil { continue }
                    if let due = state.nextDue, due <= now { continue }
                    if state.nextDue == nil, let moment = stored.reminder.nextDue(after: .distantPast),
                       moment > now.addingTimeInterval(-Self.calendarTombstone) { continue }
                }
                try row.delete(db)
            }
            for (reminder, at) in wanted.values {
                var stored = StoredReminder(reminder: reminder, state: ReminderState(nextDue: at))
                if let old = existing.first(where: { $0.id == reminder.id }) {
                    stored.reminder.createdAt = old.created_at
                    if old.definition.schedule == reminder.schedule { stored.state = old.stored.state }
                }
                try ReminderRow(stored).save(db)
            }
        }
    }

    /// The reminder firings and acknowledgements due since `since`, for `ReminderReport`: each
    /// occurrence once, by its first saying (request id `<reminder>/<due>/1`) or its `missed` row.
    public func reminderHistory(since: Date) async throws -> (firings: [ReminderReport.Firing], acks: [ReminderReport.Ack]) {
        try await writer.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT reminder_id, request_id, outcome, body, queued_at FROM announcement
                WHERE source = 'reminder' AND reminder_id IS NOT NULL AND queued_at >= ?
                """, arguments: [since.addingTimeInterval(-86_400)])
            let firings: [ReminderReport.Firing] = rows.compactMap { row in
                guard let id: String = row["reminder_id"], let queued: Date = row["queued_at"] else { return nil }
                let outcome: String = row["outcome"] ?? "queued"
                let parts = (row["request_id"] as String?)?.split(separator: "/") ?? []
                // A missed row has no request id: it stands for its occurrence, queued at its due time.
                if outcome == "missed" && parts.isEmpty {
                    return ReminderReport.Firing(reminderID: id, due: queued, outcome: outcome, text: row["body"] ?? "")
                }
                guard parts.count >= 3, parts.last == "1", let seconds = TimeInterval(parts[parts.count - 2]) else { return nil }
                return ReminderReport.Firing(reminderID: id, due: Date(timeIntervalSince1970: seconds), outcome: outcome, text: row["body"] ?? "")
            }
            let acks = try ReminderAck.filter(Column("due_at") >= since).fetchAll(db)
                .map { ReminderReport.Ack(reminderID: $0.reminderID, due: $0.dueAt, at: $0.ackedAt, by: $0.ackedBy) }
            return (firings, acks)
        }
    }

    /// How long a handled calendar firing is kept after its moment: longer than the longest
    /// `reminders.grace` (7 days), the furthest back a read plans.
    static let calendarTombstone: TimeInterval = 8 * 86_400

    public func recordAck(_ ack: ReminderAck) async throws {
        try await writer.write { db in try ack.insert(db) }
    }

    /// Inserts or updates an escalation row; returns it with its id.
    public func saveEscalation(_ record: EscalationRecord) async throws -> EscalationRecord {
        try await writer.write { db in
            var copy = record
            try copy.save(db)
            return copy
        }
    }

    /// Deliveries a stop cut off: neither delivered nor given up, with their body, oldest first.
    public func unfinishedEscalations() async throws -> [EscalationRecord] {
        try await writer.read { db in
            try EscalationRecord.filter(Column("delivered_at") == nil && Column("given_up") == false && Column("body") != nil)
                .order(Column("id")).fetchAll(db)
        }
    }

    public func escalations(reminderID: String) async throws -> [EscalationRecord] {
        try await writer.read { db in
            try EscalationRecord.filter(Column("reminder_id") == reminderID).order(Column("id")).fetchAll(db)
        }
    }
}

import Foundation
import HeraldCore
import PostgresNIO

extension FleetStore {
    static let alarmColumns = "id, hub, kind, subject, state, detail, opened_at, opened_by, closed_at, acknowledged_at, acknowledged_by"

    private func alarmRows(_ query: PostgresQuery) async throws -> [AlarmRow] {
        var alarms: [AlarmRow] = []
        let rows = try await run(query)
        for try await (id, hub, kind, subject, state, detail, openedAt, openedBy, closedAt, acknowledgedAt, acknowledgedBy)
            in rows.decode((Int64, String, String, String, String, String, Date, String, Date?, Date?, String?).self) {
            alarms.append(AlarmRow(id: id, hub: hub, kind: kind, subject: subject, state: state, detail: detail, openedAt: openedAt,
                                   openedBy: openedBy, closedAt: closedAt, acknowledgedAt: acknowledgedAt, acknowledgedBy: acknowledgedBy))
        }
        return alarms
    }

    /// Alarms, newest first: `open`, `closed`, or both (nil); of one hub when given.
    public func alarms(state: String?, hub: String? = nil, limit: Int = 500) async throws -> [AlarmRow] {
        try await alarmRows("""
            SELECT \(unescaped: Self.alarmColumns) FROM alarms
            WHERE (\(state ?? "") = '' OR state = \(state ?? "")) AND (\(hub ?? "") = '' OR hub = \(hub ?? ""))
            ORDER BY state = 'open' DESC, opened_at DESC, id DESC LIMIT \(limit)
            """)
    }

    /// The open alarms by key.
    func openAlarms() async throws -> [AlarmKey: Int64] {
        var open: [AlarmKey: Int64] = [:]
        for alarm in try await alarmRows("SELECT \(unescaped: Self.alarmColumns) FROM alarms WHERE state = 'open'") {
            if let key = alarm.key { open[key] = alarm.id }
        }
        return open
    }

    /// Opens the alarm unless one with its key is open already (another console may have opened it
    /// a moment ago): the alarm when this call opened it, nil otherwise.
    func open(_ wanted: WantedAlarm, by console: String) async throws -> AlarmRow? {
        try await alarmRows("""
            INSERT INTO alarms (hub, kind, subject, detail, opened_by)
            VALUES (\(wanted.key.hub), \(wanted.key.kind.rawValue), \(wanted.key.subject), \(wanted.detail), \(console))
            ON CONFLICT (hub, kind, subject) WHERE state = 'open' DO NOTHING
            RETURNING \(unescaped: Self.alarmColumns)
            """).first
    }

    /// Closes an open alarm; nil when it was closed already (by another console).
    func close(id: Int64, by console: String) async throws -> AlarmRow? {
        try await alarmRows("""
            UPDATE alarms SET state = 'closed', closed_at = now(), closed_by = \(console), notice_due = now()
            WHERE id = \(id) AND state = 'open' RETURNING \(unescaped: Self.alarmColumns)
            """).first
    }

    /// Marks an alarm seen by someone (it stays open until its cause is gone); nil for no such alarm.
    public func acknowledge(id: Int64, by who: String) async throws -> AlarmRow? {
        try await alarmRows("""
            UPDATE alarms SET acknowledged_at = COALESCE(acknowledged_at, now()), acknowledged_by = COALESCE(acknowledged_by, \(who))
            WHERE id = \(id) RETURNING \(unescaped: Self.alarmColumns)
            """).first
    }

    /// Open alarms by kind, for /metrics.
    func openAlarmCounts() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for try await (kind, count) in try await run("SELECT kind, count(*)::bigint FROM alarms WHERE state = 'open' GROUP BY kind").decode((String, Int64).self) {
            counts[kind] = Int(count)
        }
        return counts
    }

    /// A webhook notice to send: the alarm and whether it tells of its opening or its closing.
    struct Notice: Sendable {
        var alarm: AlarmRow
        var opening: Bool
        var attempts: Int
    }

    /// Takes the oldest notice due that no console holds, for `lease`: no other console takes it
    /// until then, so each is sent by one console at a time. An opening goes before its closing.
    func claimNotice(lease: Duration) async throws -> Notice? {
        let seconds = Int(lease.inSeconds)
        var notice: Notice?
        let rows = try await run("""
            UPDATE alarms SET notice_claimed_until = now() + make_interval(secs => \(seconds)), notice_attempts = notice_attempts + 1
            WHERE id = (SELECT id FROM alarms
                        WHERE (open_noticed_at IS NULL OR (state = 'closed' AND close_noticed_at IS NULL))
                          AND notice_due <= now() AND (notice_claimed_until IS NULL OR notice_claimed_until < now())
                        ORDER BY notice_due, id LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING \(unescaped: Self.alarmColumns), open_noticed_at IS NULL, notice_attempts
            """)
        for try await (id, hub, kind, subject, state, detail, openedAt, openedBy, closedAt, acknowledgedAt, acknowledgedBy, opening, attempts)
            in rows.decode((Int64, String, String, String, String, String, Date, String, Date?, Date?, String?, Bool, Int).self) {
            notice = Notice(alarm: AlarmRow(id: id, hub: hub, kind: kind, subject: subject, state: state, detail: detail, openedAt: openedAt,
                                            openedBy: openedBy, closedAt: closedAt, acknowledgedAt: acknowledgedAt, acknowledgedBy: acknowledgedBy),
                            opening: opening, attempts: attempts)
        }
        return notice
    }

    /// The notice went out (or there is nowhere to send it: `error` says so).
    func noticeDone(_ notice: Notice, error: String? = nil) async throws {
        let column = notice.opening ? "open_noticed_at" : "close_noticed_at"
        try await run("""
            UPDATE alarms SET \(unescaped: column) = now(), notice_attempts = 0, notice_claimed_until = NULL, notice_error = \(error),
                notice_due = now() WHERE id = \(notice.alarm.id)
            """)
    }

    /// The notice failed: tried again after `retryIn`, by whichever console comes first.
    func noticeFailed(_ notice: Notice, error: String, retryIn: Duration) async throws {
        try await run("""
            UPDATE alarms SET notice_claimed_until = NULL, notice_error = \(error),
                notice_due = now() + make_interval(secs => \(retryIn.inSeconds)) WHERE id = \(notice.alarm.id)
            """)
    }
}

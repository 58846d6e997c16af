import Foundation
import HeraldCore
import PostgresNIO

extension FleetStore {
    /// Writes a batch of hubs' messages in one transaction: the last status and heartbeat of each
    /// hub, every event (a repeat of one already kept is skipped). A hub first heard of here is
    /// added. Either all of it is written or none (the caller keeps the batch and tries again).
    ///
    /// The same transaction moves `console`'s marks (`fleet_consoles`): how far in its spool it has
    /// committed (a message at or below the mark was written before, by a console that died
    /// before it knew: skipped, so a replayed spool is written once), and `writtenThrough`, the
    /// time up to which everything it received is now written (the alarm rules' clock,
    /// `SilenceClock`). Returns how many events were new.
    @discardableResult
    func record(_ batch: [Spooled], console: String, spool: String, writtenThrough: Date) async throws -> Int {
        try await bounded(.seconds(15)) { try await self.write(batch, console: console, spool: spool, writtenThrough: writtenThrough) }
    }

    private func write(_ spooled: [Spooled], console: String, spool: String, writtenThrough: Date) async throws -> Int {
        // The server ends a statement the 15 s deadline has given up on (a lock held elsewhere).
        try await transaction(statementTimeout: .seconds(14)) { connection in
            // Each console locks only its own row: no order to keep with another console's.
            try await connection.query("INSERT INTO fleet_consoles (console) VALUES (\(console)) ON CONFLICT (console) DO NOTHING", logger: logger)
            var committed: Int64 = 0
            for try await (sequence, id) in try await connection.query(
                "SELECT spool_seq, spool_id FROM fleet_consoles WHERE console = \(console) FOR UPDATE", logger: logger).decode((Int64, String).self) {
                // Another spool's mark (this one was lost and begun afresh) says nothing of this one.
                committed = id == spool ? sequence : 0
            }
            let batch = spooled.filter { $0.sequence == 0 || Int64($0.sequence) > committed }.map(\.message)
            let added = batch.isEmpty ? 0 : try await write(batch, on: connection)
            let last = Int64(spooled.map(\.sequence).max() ?? 0)
            try await connection.query("""
                UPDATE fleet_consoles SET spool_seq = GREATEST(\(committed), \(last)), spool_id = \(spool),
                    written_through = GREATEST(COALESCE(written_through, \(writtenThrough)), \(writtenThrough)), seen_at = now(), active = true
                WHERE console = \(console)
                """, logger: logger)
            return added
        }
    }

    private func write(_ batch: [HubMessage], on connection: PostgresConnection) async throws -> Int {
        var statuses: [String: (state: String, version: String, at: Date)] = [:]
        var healths: [String: (health: HubHealth, raw: String, at: Date, live: Bool)] = [:]
        var events: [FleetEvent] = []
        for message in batch {
            switch message {
            case .status(let hub, let state, let version, let at): statuses[hub] = (state, version ?? "", at)
            case .health(let health, let raw, let at, let live): healths[health.hub] = (health, raw, at, live)
            case .event(let event, _): events.append(event)
            }
        }
        let known = Array(Set(batch.map(\.hub))).sorted()
        try await connection.query("INSERT INTO hubs (hub) SELECT unnest(\(known)) ON CONFLICT (hub) DO NOTHING", logger: logger)
        // The batch's hubs locked in name order: two consoles writing batches that share hubs
        // then wait for each other instead of deadlocking (seen with two consoles and 500 hubs).
        try await connection.query("SELECT hub FROM hubs WHERE hub = ANY(\(known)) ORDER BY hub FOR UPDATE", logger: logger)
        if !statuses.isEmpty {
            let hubs = Array(statuses.keys)
            let states = hubs.map { statuses[$0]!.state }, versions = hubs.map { statuses[$0]!.version }
            let times = hubs.map { statuses[$0]!.at }
            // A status older than the one kept (another console wrote a later one first) changes nothing.
            try await connection.query("""
                UPDATE hubs SET status = t.state, status_at = t.at, version = COALESCE(NULLIF(t.version, ''), hubs.version)
                FROM unnest(\(hubs), \(states), \(versions), \(times)) AS t(hub, state, version, at)
                WHERE hubs.hub = t.hub AND (hubs.status_at IS NULL OR hubs.status_at <= t.at)
                """, logger: logger)
        }
        if !healths.isEmpty {
            let hubs = Array(healths.keys)
            let rows = hubs.map { healths[$0]! }
            let separator = "\u{1F}"
            let groups = rows.map { $0.health.groups.joined(separator: separator) }
            let muted = rows.map { $0.health.rooms.filter { $0.present && $0.muted }.map(\.room).joined(separator: separator) }
            let absent = rows.map { $0.health.rooms.filter { !$0.present }.map(\.room).joined(separator: separator) }
            let failed = rows.map { $0.health.outcomes24h["failed", default: 0] }
            let missed = rows.map { $0.health.reminders.missed24h }
            let intervals = rows.map(\.health.intervalSeconds), versions = rows.map(\.health.version)
            let errors = rows.map { $0.health.lastError ?? "" }, bodies = rows.map(\.raw), times = rows.map(\.at)
            let live = rows.map(\.live)
            try await connection.query("""
                UPDATE hubs SET health_at = t.at, health = t.body::jsonb, interval_s = t.interval_s, version = t.version,
                    groups = string_to_array(t.groups, \(separator)), rooms_muted = string_to_array(t.muted, \(separator)),
                    rooms_absent = string_to_array(t.absent, \(separator)), failed_24h = t.failed, missed_24h = t.missed,
                    last_error = NULLIF(t.error, ''),
                    -- A heartbeat heard live says the hub is up; a retained one handed over at subscribe
                    -- time may be the last of a hub that has stopped since (its status says).
                    status = CASE WHEN t.live AND (hubs.status_at IS NULL OR hubs.status_at < t.at) THEN 'online' ELSE hubs.status END
                FROM unnest(\(hubs), \(times), \(bodies), \(intervals), \(versions), \(groups), \(muted), \(absent), \(failed), \(missed), \(errors), \(live))
                    AS t(hub, at, body, interval_s, version, groups, muted, absent, failed, missed, error, live)
                WHERE hubs.hub = t.hub AND (hubs.health_at IS NULL OR hubs.health_at <= t.at)
                """, logger: logger)
        }
        guard !events.isEmpty else { return 0 }
        let hubs = events.map(\.hub), times = events.map(\.at), outcomes = events.map(\.outcome)
        let ids = events.map { $0.announcement ?? "" }, requests = events.map { $0.requestID ?? "" }
        let errors = events.map { $0.error ?? "" }, bodies = events.map(\.body)
        var inserted = 0
        for try await count in try await connection.query("""
            WITH added AS (
                INSERT INTO events (hub, at, outcome, announcement, request_id, error, body)
                SELECT hub, at, outcome, NULLIF(id, ''), NULLIF(request, ''), NULLIF(error, ''), body::jsonb
                FROM unnest(\(hubs), \(times), \(outcomes), \(ids), \(requests), \(errors), \(bodies)) AS t(hub, at, outcome, id, request, error, body)
                ON CONFLICT (hub, announcement, outcome) WHERE announcement IS NOT NULL DO NOTHING
                RETURNING 1)
            SELECT count(*)::bigint FROM added
            """, logger: logger).decode(Int64.self) { inserted = Int(count) }
        return inserted
    }
}

import Foundation
import HeraldCore
import PostgresNIO

extension FleetStore {
    /// Each hub's presence (what the alarm rules read beside its heartbeat).
    func presences() async throws -> [(hub: String, presence: HubPresence)] {
        var result: [(String, HubPresence)] = []
        let rows = try await run("SELECT hub, status, status_at, health_at, interval_s FROM hubs")
        for try await (hub, status, statusAt, healthAt, interval) in rows.decode((String, String?, Date?, Date?, Int).self) {
            result.append((hub, HubPresence(status: status, statusAt: statusAt, healthAt: healthAt, intervalSeconds: interval)))
        }
        return result
    }

    /// The last heartbeat of each of `hubs` that has one, with when it arrived; a heartbeat that
    /// no longer reads (written by another version) is nil.
    func heartbeats(of hubs: [String]) async throws -> [(hub: String, at: Date, health: HubHealth?)] {
        var result: [(String, Date, HubHealth?)] = []
        let rows = try await run("SELECT hub, health_at, health::text FROM hubs WHERE hub = ANY(\(hubs)) AND health_at IS NOT NULL")
        for try await (hub, at, health) in rows.decode((String, Date, String?).self) {
            result.append((hub, at, health.flatMap { try? HubHealth.decode(Array($0.utf8)) }))
        }
        return result
    }

    /// One hub's last heartbeat as it sent it, or nil.
    func health(of hub: String) async throws -> String? {
        var health: String?
        for try await text in try await run("SELECT health::text FROM hubs WHERE hub = \(hub)").decode(String?.self) {
            health = text
        }
        return health
    }

    /// A hub's latest events, newest first.
    func events(of hub: String, limit: Int) async throws -> [FleetEvent] {
        var events: [FleetEvent] = []
        let rows = try await run("""
            SELECT hub, at, outcome, announcement, request_id, error, body::text FROM events WHERE hub = \(hub) ORDER BY at DESC, id DESC LIMIT \(limit)
            """)
        for try await (hub, at, outcome, announcement, request, error, body) in rows.decode((String, Date, String, String?, String?, String?, String).self) {
            events.append(FleetEvent(hub: hub, at: at, outcome: outcome, announcement: announcement, requestID: request, error: error, body: body))
        }
        return events
    }

    /// The outcomes events that end an announcement (not `accepted`, `queued` or a refused message).
    static let notAnOutcome = ["accepted", "queued", "error"]

    /// Announcements by outcome per hour since `since`, for the fleet, a group or one hub.
    func hourly(since: Date, hub: String?, group: String?) async throws -> [HourCount] {
        var counts: [HourCount] = []
        let rows = try await run("""
            SELECT date_trunc('hour', e.at, 'UTC') AS hour, e.outcome, count(*)::bigint FROM events e
            WHERE e.at >= \(since) AND NOT (e.outcome = ANY(\(Self.notAnOutcome)))
              AND (\(hub ?? "") = '' OR e.hub = \(hub ?? ""))
              AND (\(group ?? "") = '' OR e.hub IN (SELECT h.hub FROM hubs h WHERE \(group ?? "") = ANY(h.groups)))
            GROUP BY 1, 2 ORDER BY 1, 2
            """)
        for try await (hour, outcome, count) in rows.decode((Date, String, Int64).self) {
            counts.append(HourCount(hour: hour, outcome: outcome, count: Int(count)))
        }
        return counts
    }

    /// How many events the database holds: for the benchmark and the status.
    func eventCount() async throws -> Int {
        var total = 0
        for try await count in try await run("SELECT count(*)::bigint FROM events").decode(Int64.self) { total = Int(count) }
        return total
    }
}

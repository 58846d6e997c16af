import Foundation
import HeraldCore
import PostgresNIO

/// The hub listing of `GET /v1/hubs`: filtered, paged and counted by the database, so a page of
/// 100 hubs costs the same with 5,000 hubs or 100,000 (docs/fleet.md, "The page and the API").
extension FleetStore {
    /// The hubs `filter` matches at `now`, in name order: after `after` (keyset: the index on the
    /// name, not an offset), at most `limit`.
    func hubs(_ filter: HubFilter, after: String? = nil, limit: Int? = nil, now: Date = Date()) async throws -> [HubRow] {
        try await hubRows("""
            SELECT \(unescaped: Self.hubColumns) FROM hubs
            WHERE \(matching: filter, at: now) AND hub > \(after ?? "")
            ORDER BY hub LIMIT \(limit.map(Int64.init) ?? Int64.max)
            """, now: now)
    }

    /// One page and the counts. One more row than asked tells whether a page follows.
    func hubPage(_ filter: HubFilter, after: String?, limit: Int, now: Date = Date()) async throws -> HubPage {
        async let counted = counts(filter, now: now)
        var rows = try await hubs(filter, after: after, limit: limit + 1, now: now)
        let more = rows.count > limit
        if more { rows.removeLast() }
        return HubPage(hubs: rows, next: more ? rows.last?.hub : nil, counts: try await counted, cursor: HubListRequest.cursor(now))
    }

    /// How long a transaction that changes a hub may stay open after it changed it (the ingest's
    /// deadline is 15 s): a change committed late is still found by the polls that follow.
    static let changeOverlap: TimeInterval = 16

    /// The hubs that changed in what the page shows since `since`, `filter`'s group and text
    /// applied: a changed row (`changed_at`), a state that time turned (stale or offline) in
    /// between, or an alarm opened or closed. A change may come twice (the overlap): merging is
    /// idempotent. More than `limit`: `resync`, no hubs. Each part is an index range.
    func hubChanges(_ filter: HubFilter, since: Date, limit: Int, now: Date = Date()) async throws -> HubChanges {
        async let counted = counts(filter, now: now)
        let overlap = since.addingTimeInterval(-Self.changeOverlap)
        var rows = try await hubRows("""
            SELECT \(unescaped: Self.hubColumns) FROM hubs
            WHERE \(matching: filter, at: now) AND hub IN (
                SELECT hub FROM hubs WHERE changed_at > \(overlap)
                UNION SELECT hub FROM hubs WHERE stale_from > \(since) AND stale_from <= \(now)
                UNION SELECT hub FROM hubs WHERE offline_from > \(since) AND offline_from <= \(now)
                UNION SELECT hub FROM alarms WHERE opened_at > \(overlap) OR closed_at > \(overlap))
            ORDER BY hub LIMIT \(Int64(limit + 1))
            """, now: now)
        let resync = rows.count > limit
        if resync { rows = [] }
        return HubChanges(hubs: rows, resync: resync, counts: try await counted, cursor: HubListRequest.cursor(now))
    }

    /// How many hubs `filter`'s group and text match, by state at `now`. The total comes from
    /// the counters (`hub_counts`) unless a name is matched; the stale and the offline are index
    /// ranges (`stale_from`, `offline_from`); the online are the rest.
    func counts(_ filter: HubFilter, now: Date = Date()) async throws -> HubCounts {
        var all = filter, stale = filter, offline = filter
        all.state = nil
        stale.state = .stale
        offline.state = .offline
        let total: PostgresQuery = filter.text == nil && filter.hub == nil
            ? "SELECT COALESCE((SELECT hubs FROM hub_counts WHERE grp = \(filter.group ?? "")), 0)"
            : "SELECT count(*)::bigint FROM hubs WHERE \(matching: all, at: now)"
        var counted = (total: 0, stale: 0, offline: 0)
        for try await count in try await run(total).decode(Int64.self) { counted.total = Int(count) }
        for try await (stale, offline) in try await run("""
            SELECT (SELECT count(*) FROM hubs WHERE \(matching: stale, at: now))::bigint,
                   (SELECT count(*) FROM hubs WHERE \(matching: offline, at: now))::bigint
            """).decode((Int64, Int64).self) {
            counted.stale = Int(stale)
            counted.offline = Int(offline)
        }
        return HubCounts(online: max(0, counted.total - counted.stale - counted.offline), stale: counted.stale, offline: counted.offline)
    }

    /// How many hubs are in each state at `now` (`/metrics`).
    func stateCounts(now: Date = Date()) async throws -> [HubState: Int] {
        let counted = try await counts(HubFilter(), now: now)
        return [.online: counted.online, .stale: counted.stale, .offline: counted.offline]
    }

    /// Every group with how many hubs it has (`GET /v1/groups`, the page's group filter): the
    /// counters, not the rows.
    func groups() async throws -> [GroupCount] {
        var groups: [GroupCount] = []
        for try await (group, count) in try await run("""
            SELECT grp, hubs FROM hub_counts WHERE grp <> '' AND hubs > 0 ORDER BY grp
            """).decode((String, Int64).self) {
            groups.append(GroupCount(group: group, hubs: Int(count)))
        }
        return groups
    }

    static let hubColumns = """
        hub, groups, version, status, status_at, health_at, interval_s, rooms_muted, rooms_absent, failed_24h, missed_24h, last_error
        """

    /// Rows of `hubColumns`, each with its state at `now` and its open alarms.
    private func hubRows(_ query: PostgresQuery, now: Date) async throws -> [HubRow] {
        var hubs: [HubRow] = []
        for try await (hub, groups, version, status, statusAt, healthAt, interval, muted, absent, failed, missed, error)
            in try await run(query).decode((String, [String], String, String?, Date?, Date?, Int, [String], [String], Int, Int, String?).self) {
            let presence = HubPresence(status: status, statusAt: statusAt, healthAt: healthAt, intervalSeconds: interval)
            let (state, since) = presence.state(at: now)
            hubs.append(HubRow(hub: hub, state: state, since: since, groups: groups, version: version, lastHeartbeat: healthAt,
                               intervalSeconds: interval, roomsMuted: muted, roomsAbsent: absent, failed24h: failed,
                               missed24h: missed, lastError: error, openAlarms: 0))
        }
        guard !hubs.isEmpty else { return hubs }
        var open: [String: Int] = [:]
        for try await (hub, count) in try await run("""
            SELECT hub, count(*)::bigint FROM alarms WHERE state = 'open' AND hub = ANY(\(hubs.map(\.hub))) GROUP BY hub
            """).decode((String, Int64).self) {
            open[hub] = Int(count)
        }
        for index in hubs.indices { hubs[index].openAlarms = open[hubs[index].hub, default: 0] }
        return hubs
    }
}

extension PostgresQuery.StringInterpolation {
    /// `filter` as a condition on `hubs`, its values bound: `WHERE \(matching: filter, at: now)`.
    /// Only the parts that apply, each as an index can serve it: the group through the GIN index
    /// (`@>`), the state through `stale_from` and `offline_from` (the trigger keeps them as
    /// `HubPresence.state(at:)` judges).
    mutating func appendInterpolation(matching filter: HubFilter, at now: Date) {
        appendLiteral("TRUE")
        if let group = filter.group {
            appendLiteral(" AND groups @> ARRAY[")
            appendInterpolation(group)
            appendLiteral("]::text[]")
        }
        switch filter.state {
        case .online?:
            appendLiteral(" AND stale_from > ")
            appendInterpolation(now)
        case .stale?:
            appendLiteral(" AND stale_from <= ")
            appendInterpolation(now)
            appendLiteral(" AND offline_from > ")
            appendInterpolation(now)
        case .offline?:
            appendLiteral(" AND offline_from <= ")
            appendInterpolation(now)
        case nil:
            break
        }
        if let text = filter.text {
            appendLiteral(" AND strpos(lower(hub), ")
            appendInterpolation(text)
            appendLiteral(") > 0")
        }
        if let hub = filter.hub {
            appendLiteral(" AND hub = ")
            appendInterpolation(hub)
        }
    }
}

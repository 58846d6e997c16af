import Foundation
import HeraldConfig

/// What `GET /v1/hubs` was asked, read from its query and checked: every bad value is a 400
/// naming the parameter and the value.
///
/// - no `limit`, `after`, `q` or `since`: every hub, as a bare array (the answer before paging,
///   kept for scripts written against it; heavy past a few thousand hubs);
/// - `limit` (1 to 1000, default 100), `after`, `q`: one page, in name order, with the counts;
/// - `since` (the `cursor` of the last answer): the hubs changed since, with the counts.
enum HubListRequest: Equatable {
    case all(HubFilter)
    case page(HubFilter, after: String?, limit: Int)
    case changes(HubFilter, since: Date, limit: Int)

    static let defaultLimit = 100
    static let maxLimit = 1000
    /// How far ahead of this console's clock a cursor may be (another console's clock).
    static let cursorLeeway: TimeInterval = 60

    /// - Parameters:
    ///   - parameters: the query, one value per name (the last when repeated).
    ///   - now: to refuse a cursor from the future.
    static func parse(_ parameters: [String: String], now: Date = Date()) throws(FleetAPIError) -> HubListRequest {
        var filter = HubFilter()
        if let text = parameters["state"] {
            guard let state = HubState(rawValue: text) else {
                throw FleetAPIError(.badRequest, field: "state", "state '\(text)' is not a state; use online, stale or offline")
            }
            filter.state = state
        }
        if let group = parameters["group"], !group.isEmpty { filter.group = group }
        if let text = parameters["q"] {
            guard text.count <= 64 else {
                throw FleetAPIError(.badRequest, field: "q", "q '\(text.prefix(64))…' is longer than a hub name (64 characters)")
            }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty { filter.text = trimmed.lowercased() }
        }
        let limit = try limit(parameters["limit"])
        if let since = parameters["since"] {
            guard parameters["after"] == nil else {
                throw FleetAPIError(.badRequest, field: "after", "after and since do not go together: since answers every change, by name")
            }
            guard filter.state == nil else {
                throw FleetAPIError(.badRequest, field: "state", "state and since do not go together: a hub that left the state is a change too")
            }
            return .changes(filter, since: try cursor(since, now: now), limit: limit ?? maxLimit)
        }
        if let after = parameters["after"] {
            guard MQTTSettings.isTopicName(after) else {
                throw FleetAPIError(.badRequest, field: "after", "after '\(after.prefix(80))' is not a cursor: give the `next` of the page before (a hub name)")
            }
            return .page(filter, after: after, limit: limit ?? defaultLimit)
        }
        if limit != nil || parameters["q"] != nil { return .page(filter, after: nil, limit: limit ?? defaultLimit) }
        return .all(filter)
    }

    private static func limit(_ text: String?) throws(FleetAPIError) -> Int? {
        guard let text else { return nil }
        guard let limit = Int(text), (1...maxLimit).contains(limit) else {
            throw FleetAPIError(.badRequest, field: "limit", "limit '\(text.prefix(40))' is not a number from 1 to \(maxLimit)")
        }
        return limit
    }

    /// A `since` cursor: the console's clock, in milliseconds, when it answered.
    static func cursor(_ text: String, now: Date) throws(FleetAPIError) -> Date {
        guard text.count <= 16, let milliseconds = Int64(text), milliseconds >= 0,
              Double(milliseconds) / 1000 <= now.timeIntervalSince1970 + cursorLeeway else {
            throw FleetAPIError(.badRequest, field: "since", "since '\(text.prefix(40))' is not a cursor: give the `cursor` of the last answer")
        }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The cursor that names `date`.
    static func cursor(_ date: Date) -> String { String(Int64((date.timeIntervalSince1970 * 1000).rounded(.down))) }
}

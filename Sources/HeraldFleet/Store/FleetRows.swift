import Foundation
import HeraldCore

/// One hub as `GET /v1/hubs` lists it.
public struct HubRow: Sendable, Encodable {
    public var hub: String
    public var state: HubState
    /// Since when the state holds (offline: since the will, or since the third missed heartbeat).
    public var since: Date?
    public var groups: [String]
    public var version: String
    public var lastHeartbeat: Date?
    public var intervalSeconds: Int
    public var roomsMuted: [String]
    public var roomsAbsent: [String]
    public var failed24h: Int
    public var missed24h: Int
    public var lastError: String?
    public var openAlarms: Int

    enum CodingKeys: String, CodingKey {
        case hub, state, since, groups, version
        case lastHeartbeat = "last_heartbeat", intervalSeconds = "interval_s", roomsMuted = "rooms_muted"
        case roomsAbsent = "rooms_absent", failed24h = "failed_24h", missed24h = "missed_24h", lastError = "last_error"
        case openAlarms = "open_alarms"
    }
}

/// One alarm as `GET /v1/alarms` lists it and the webhook receives it.
public struct AlarmRow: Sendable, Codable, Equatable {
    public var id: Int64
    public var hub: String
    public var kind: String
    public var subject: String
    public var state: String
    public var detail: String
    public var openedAt: Date
    public var openedBy: String
    public var closedAt: Date?
    public var acknowledgedAt: Date?
    public var acknowledgedBy: String?

    enum CodingKeys: String, CodingKey {
        case id, hub, kind, subject, state, detail
        case openedAt = "opened_at", openedBy = "opened_by", closedAt = "closed_at"
        case acknowledgedAt = "acknowledged_at", acknowledgedBy = "acknowledged_by"
    }

    var key: AlarmKey? { AlarmKind(rawValue: kind).map { AlarmKey(hub: hub, kind: $0, subject: subject) } }
}

/// Announcements by outcome in one hour, for the chart.
public struct HourCount: Sendable, Encodable {
    public var hour: Date
    public var outcome: String
    public var count: Int
}

import Foundation

/// Which hubs a listing asks for (`GET /v1/hubs`); nil is "any".
public struct HubFilter: Sendable, Equatable {
    /// Hubs in this group.
    public var group: String?
    /// Hubs in this state now.
    public var state: HubState?
    /// Hubs whose name contains this, in any case.
    public var text: String?
    /// The one hub of this name.
    public var hub: String?

    public init(group: String? = nil, state: HubState? = nil, text: String? = nil, hub: String? = nil) {
        self.group = group
        self.state = state
        self.text = text
        self.hub = hub
    }
}

/// One page of `GET /v1/hubs?limit=`: the hubs, where the next page starts, and the counts of
/// every hub the filter's group and text match, by state (from one aggregate query, not from
/// the rows).
public struct HubPage: Sendable, Encodable {
    public var hubs: [HubRow]
    /// The `after` of the next page; nil on the last.
    public var next: String?
    public var counts: HubCounts
    /// The `since` of the first `?since=` poll after this page.
    public var cursor: String
}

/// `GET /v1/hubs?since=`: the hubs that changed in what the page shows since the cursor, or
/// `resync` (more changed than `limit`: read the page again).
public struct HubChanges: Sendable, Encodable {
    public var hubs: [HubRow]
    public var resync: Bool
    public var counts: HubCounts
    public var cursor: String
}

/// How many hubs match a group and a text, in all and by state.
public struct HubCounts: Sendable, Encodable, Equatable {
    public var total: Int
    public var online: Int
    public var stale: Int
    public var offline: Int

    init(online: Int, stale: Int, offline: Int) {
        self.online = online
        self.stale = stale
        self.offline = offline
        total = online + stale + offline
    }
}

/// A group and how many hubs are in it.
public struct GroupCount: Sendable, Encodable, Equatable {
    public var group: String
    public var hubs: Int
}

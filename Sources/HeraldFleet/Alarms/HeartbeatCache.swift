import Foundation
import HeraldCore

/// The hubs' last heartbeats as the alarm sweep last read them, each with when it arrived. A
/// sweep reads again only the hubs whose heartbeat is newer than the one held, so a large fleet
/// is not read and decoded whole every two seconds.
struct HeartbeatCache {
    private var held: [String: (at: Date, health: HubHealth?)] = [:]

    subscript(hub: String) -> HubHealth? { held[hub]?.health }

    /// Brings the cache up to `presences` (every hub now in the database): reads the heartbeats
    /// that changed, forgets hubs that are gone.
    mutating func refresh(for presences: [(hub: String, presence: HubPresence)], from store: FleetStore) async throws {
        let changed = presences.filter { hub, presence in
            presence.healthAt != nil && held[hub]?.at != presence.healthAt
        }.map(\.hub)
        let beating = Set(presences.filter { $0.presence.healthAt != nil }.map(\.hub))
        held = held.filter { beating.contains($0.key) }
        if !changed.isEmpty {
            for (hub, at, health) in try await store.heartbeats(of: changed) { held[hub] = (at, health) }
        }
    }
}

import Foundation
import GRDB

/// One MQTT event the hub owes the broker: written before it is handed to libmosquitto, removed
/// once the broker acknowledged it (PUBACK), so a kill -9 or a broker away for days loses none.
public struct HeldEvent: Sendable, Equatable {
    public var id: Int64
    public var topic: String
    public var payload: [UInt8]

    public init(id: Int64, topic: String, payload: [UInt8]) {
        self.id = id
        self.topic = topic
        self.payload = payload
    }
}

extension AppDatabase {
    /// At most this many events wait; beyond it the oldest go (a hub offline for months must not
    /// fill its disk with events nobody reads any more).
    public static let eventOutboxLimit = 10_000

    /// Keeps `payload` for `topic` until `releaseEvent(id:)`; returns its id (the order it goes out in).
    public func holdEvent(topic: String, payload: [UInt8], at now: Date = Date()) async throws -> Int64 {
        try await writer.write { db in
            try db.execute(sql: "INSERT INTO event_outbox (topic, payload, held_at) VALUES (?, ?, ?)",
                           arguments: [topic, Data(payload), now])
            let id = db.lastInsertedRowID
            try db.execute(sql: "DELETE FROM event_outbox WHERE id <= ?", arguments: [id - Int64(Self.eventOutboxLimit)])
            return id
        }
    }

    /// Every event still owed, oldest first.
    public func heldEvents() async throws -> [HeldEvent] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT id, topic, payload FROM event_outbox ORDER BY id").map {
                HeldEvent(id: $0["id"], topic: $0["topic"], payload: Array($0["payload"] as Data))
            }
        }
    }

    /// The broker has it (or refused it for good): it is no longer owed.
    public func releaseEvent(id: Int64) async throws {
        try await writer.write { db in try db.execute(sql: "DELETE FROM event_outbox WHERE id = ?", arguments: [id]) }
    }
}

import Foundation
import GRDB
@testable import HeraldStore
import Testing

/// The MQTT events the broker has not acknowledged yet: kept in the file, in order, across a
/// reopen (what a kill -9 amounts to), until released; bounded.
@Suite struct EventOutboxTests {
    @Test func heldEventsOutliveAReopenInOrderUntilReleased() async throws {
        let folder = NSTemporaryDirectory() + "herald-outbox-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/herald.sqlite"
        let database = try AppDatabase(path: path)
        let first = try await database.holdEvent(topic: "herald/a/events", payload: Array(#"{"outcome":"accepted"}"#.utf8))
        let second = try await database.holdEvent(topic: "herald/a/events", payload: Array(#"{"outcome":"played"}"#.utf8))
        #expect(first < second)

        let reopened = try AppDatabase(path: path)
        var owed = try await reopened.heldEvents()
        #expect(owed.map(\.id) == [first, second])
        #expect(owed.map { String(decoding: $0.payload, as: UTF8.self) } == [#"{"outcome":"accepted"}"#, #"{"outcome":"played"}"#])
        #expect(owed.allSatisfy { $0.topic == "herald/a/events" })

        try await reopened.releaseEvent(id: first)
        owed = try await reopened.heldEvents()
        #expect(owed.map(\.id) == [second])
    }

    @Test func beyondTheLimitTheOldestGo() async throws {
        let database = try AppDatabase(DatabaseQueue())
        var ids: [Int64] = []
        for index in 0..<(AppDatabase.eventOutboxLimit + 3) {
            ids.append(try await database.holdEvent(topic: "t", payload: Array("\(index)".utf8)))
        }
        let owed = try await database.heldEvents()
        #expect(owed.count == AppDatabase.eventOutboxLimit)
        #expect(owed.first?.id == ids[3])
        #expect(owed.last?.id == ids.last)
    }
}

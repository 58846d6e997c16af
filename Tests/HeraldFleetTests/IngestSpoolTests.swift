import Foundation
import Testing
@testable import HeraldFleet

/// The console's spool (issue 44): what it received survives the process, in order, numbered on
/// across restarts and rotations; a torn last record is dropped.
@Suite struct IngestSpoolTests {
    let path = NSTemporaryDirectory() + "herald-spool-\(UUID().uuidString)"

    @Test func whatWasAppendedIsReadBackInOrderAndNumbersKeepRising() throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let at = Date(timeIntervalSince1970: 1_800_000_000.25)
        var id = ""
        var first: UInt64 = 0
        do {
            let (spool, held) = try IngestSpool.open(path)
            #expect(held.isEmpty)
            id = spool.id
            first = spool.append(topic: "herald/a/events", payload: Array("{}".utf8), retained: false, receivedAt: at)
            #expect(spool.append(topic: "herald/b/health", payload: [], retained: true, receivedAt: at) == first + 1)
        }
        let (spool, held) = try IngestSpool.open(path)
        #expect(spool.id == id, "the same spool")
        #expect(held == [IngestSpool.Record(sequence: first, topic: "herald/a/events", payload: Array("{}".utf8), retained: false, receivedAt: at),
                         IngestSpool.Record(sequence: first + 1, topic: "herald/b/health", payload: [], retained: true, receivedAt: at)])
        let third = spool.append(topic: "herald/c/status", payload: [1], retained: false, receivedAt: at)
        #expect(third > first + 1)
        // Everything committed: the file starts afresh, and the numbers go on.
        try spool.rotate(committed: third, over: 0)
        #expect(IngestSpool.read(path).isEmpty)
        #expect(spool.append(topic: "herald/d/status", payload: [2], retained: false, receivedAt: at) == third + 1)
        let (_, after) = try IngestSpool.open(path)
        #expect(after.map(\.sequence) == [third + 1])
    }

    @Test func aSpoolWithRecordsNotCommittedIsNotRotated() throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (spool, _) = try IngestSpool.open(path)
        let first = spool.append(topic: "herald/a/events", payload: [1], retained: false, receivedAt: Date())
        _ = spool.append(topic: "herald/a/events", payload: [2], retained: false, receivedAt: Date())
        try spool.rotate(committed: first, over: 0)
        #expect(IngestSpool.read(path).count == 2)
    }

    @Test func aTornLastRecordIsDropped() throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let (spool, _) = try IngestSpool.open(path)
            _ = spool.append(topic: "herald/a/events", payload: Array(repeating: 7, count: 100), retained: false, receivedAt: Date())
            _ = spool.append(topic: "herald/a/events", payload: Array(repeating: 8, count: 100), retained: false, receivedAt: Date())
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(truncate(path, off_t(size - 10)) == 0)
        let (spool, held) = try IngestSpool.open(path)
        #expect(held.count == 1 && held.first?.payload.first == 7)
        // The torn one's number is not given again: the database may have marked it written.
        #expect(spool.append(topic: "herald/a/events", payload: [], retained: false, receivedAt: Date()) > held[0].sequence + 1)
    }
}

/// When the console may say everything it received is written (its idle mark, `SilenceClock`).
@Suite struct WaitingMessagesMarkTests {
    @Test func idleOnlyWithNothingWaitingAndEverySpooledMessageSeen() async {
        let waiting = WaitingMessages(maxEvents: 10)
        #expect(await waiting.isIdle(through: 0))
        // Spooled up to 3, seen only 1 so far: messages 2 and 3 are on their way.
        await waiting.add(.status(hub: "shop-1", state: "online", version: nil, receivedAt: Date()), sequence: 1)
        #expect(await !waiting.isIdle(through: 3))
        _ = await waiting.next(10)
        await waiting.written(1)
        #expect(await !waiting.isIdle(through: 3))
        // A refused message (2) and an empty one (3) move it on without anything to write.
        await waiting.skip(2)
        await waiting.skip(3)
        #expect(await waiting.isIdle(through: 3))
    }
}

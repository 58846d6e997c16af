import Foundation
import HeraldCore
@testable import HeraldFleet
import Testing

/// The console's bounds on one hub's message: over a size or a room count it is refused as too
/// large; under them every string it keeps is cut (issue 42).
@Suite struct HubMessageLimitsTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func heartbeat(rooms: Int, lastError: String? = nil) -> [UInt8] {
        let list = (0..<rooms).map { HubHealth.Room(room: "room-\($0)", sink: "sink-\($0)", present: false, muted: false, volumePercent: nil) }
        return HubHealth(hub: "shop-1", version: "1", at: now, uptimeSeconds: 5, intervalSeconds: 60, rooms: list, lastError: lastError).json
    }

    func refusal(_ topic: String, _ payload: [UInt8]) -> HubMessageError? {
        do {
            _ = try HubMessage.read(topic: topic, payload: payload, receivedAt: now)
            return nil
        } catch {
            return error
        }
    }

    @Test func aHeartbeatOverTheRoomCountIsRefusedAsTooLarge() throws {
        #expect(refusal("herald/shop-1/health", heartbeat(rooms: HubMessageLimits.maxRooms)) == nil)
        let error = try #require(refusal("herald/shop-1/health", heartbeat(rooms: HubMessageLimits.maxRooms + 1)))
        #expect(error.tooLarge && error.problem.contains("65 rooms, more than the 64"), "\(error)")
    }

    @Test(arguments: [("health", 65_537), ("status", 65_537), ("events", 16_385)])
    func aPayloadOverTheSizeIsRefusedBeforeItIsRead(kind: String, bytes: Int) throws {
        // Not even JSON: the size alone refuses it, before any parsing.
        let error = try #require(refusal("herald/shop-1/\(kind)", Array(repeating: UInt8(ascii: "x"), count: bytes)))
        #expect(error.tooLarge && error.problem.contains("\(bytes) bytes"), "\(error)")
        let other = try #require(refusal("herald/shop-1/\(kind)", Array(repeating: UInt8(ascii: "x"), count: bytes - 1)))
        #expect(!other.tooLarge, "one byte less is read (and refused for its shape): \(other)")
    }

    @Test func aLongLastErrorIsCutInTheHeartbeatAndInWhatIsStored() throws {
        let long = String(repeating: "e", count: 20_000)
        guard case .health(let health, let raw, _, _) = try HubMessage.read(topic: "herald/shop-1/health", payload: heartbeat(rooms: 1, lastError: long),
                                                                              receivedAt: now) else {
            Issue.record("not a heartbeat")
            return
        }
        #expect(health.lastError?.count == HubMessageLimits.maxError)
        #expect(raw.count < 2_000, "the stored heartbeat is the cut one, \(raw.count) characters")
        #expect(try HubHealth.decode(Array(raw.utf8)).lastError == health.lastError)
    }

    @Test func anEventsErrorAndIdsAreCut() throws {
        let long = String(repeating: "x", count: 5_000)
        let payload = #"{"outcome":"failed","id":"\#(long)","request_id":"\#(long)","error":"\#(long)"}"#
        guard case .event(let event, _) = try HubMessage.read(topic: "herald/shop-1/events", payload: Array(payload.utf8), receivedAt: now) else {
            Issue.record("not an event")
            return
        }
        #expect(event.error?.count == HubMessageLimits.maxError)
        #expect(event.announcement?.count == HubMessageLimits.maxName && event.requestID?.count == HubMessageLimits.maxName)
    }
}

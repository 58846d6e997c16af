import Foundation
import HeraldCore
@testable import HeraldMQTT
import Testing

/// What the hub publishes on its events topic, and how it names a message it could not read,
/// without a broker: the backend parses these, so their shape is a contract (docs/mqtt.md).
struct MQTTEventTests {
    func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func anOutcomeEventCarriesTheRowsIdsOutcomeAndLatencyInSnakeCase() throws {
        var record = AnnouncementRecord(requestID: "till-3/0042", client: "", source: .mqtt, priority: .high,
                                        bodyKind: .text, body: "Payment received", queuedAt: Date(timeIntervalSince1970: 0))
        record.outcome = .played
        record.onsetLatencyMilliseconds = 21
        let event = MQTTEvent(hub: "shop-12", topic: "herald/shop-12/announce", record: record)
        let bytes = event.json
        let json = try object(bytes)
        #expect(json["hub"] as? String == "shop-12")
        #expect(json["id"] as? String == record.id)
        #expect(json["request_id"] as? String == "till-3/0042")
        #expect(json["outcome"] as? String == "played")
        #expect(json["onset_latency_ms"] as? Int == 21)
        #expect(json["field"] == nil && json["error"] == nil)
        // Topics are written as they are, never with escaped slashes.
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""topic":"herald/shop-12/announce""#))
    }

    @Test func aRowWithNoOutcomeYetIsQueuedAndAnExplicitOutcomeWins() throws {
        let record = AnnouncementRecord(requestID: "r-1", client: "", source: .mqtt, priority: .normal,
                                        bodyKind: .text, body: "x", queuedAt: Date())
        #expect(try object(MQTTEvent(hub: "h", topic: "t", record: record).json)["outcome"] as? String == "queued")
        #expect(try object(MQTTEvent(hub: "h", topic: "t", record: record, outcome: "duplicate").json)["outcome"] as? String == "duplicate")
    }

    @Test func anErrorEventNamesTheFieldAndHasNoId() throws {
        let event = MQTTEvent(hub: "h", topic: "herald/h/announce", requestID: "r-9", error: "must be a decimal", field: "payment.amount")
        let json = try object(event.json)
        #expect(json["outcome"] as? String == "error")
        #expect(json["field"] as? String == "payment.amount")
        #expect(json["request_id"] as? String == "r-9")
        #expect(json["id"] == nil)
    }

    @Test(arguments: [
        (#"{"text": "hi", "request_id": "a-1"}"#, "a-1"),
        (#"{"message": {"data": {"action": "speak_tts", "request_id": "p-2"}}}"#, "p-2"),
        (#"{"text": "hi"}"#, nil),
        (#"{"request_id": 5}"#, nil),
        ("not json", nil),
        ("[1, 2]", nil),
    ] as [(String, String?)])
    func theRequestIdOfAPayloadHeraldCouldNotReadIsFoundWhereThereIsOne(payload: String, expected: String?) {
        #expect(MQTTLink.requestID(in: Array(payload.utf8)) == expected)
    }

    @Test func theRetainedRefusalSaysWhatToDoAndHowToClearTheMessage() {
        let text = MQTTLink.retainedRefusal("herald/shop-12/announce")
        #expect(text.contains("without the retain flag"))
        #expect(text.hasSuffix("(mosquitto_pub -r -n -t herald/shop-12/announce)"))
    }
}

import Foundation
import HeraldCore

/// What the hub publishes on `herald/<hub>/events` for each message: the backend measures
/// delivery per hub from these.
///
/// ```json
/// {"hub": "shop-12", "id": "…", "request_id": "till-3/0042", "outcome": "played",
///  "onset_latency_ms": 21, "topic": "herald/shop-12/announce", "at": "2026-11-22T21:40:02Z"}
/// ```
struct MQTTEvent: Encodable, Sendable {
    var hub: String
    /// The announcement's id; absent when the message never became one (`error`).
    var id: String?
    var requestId: String?
    /// An announcement outcome (played, failed, dropped_stale, duplicate, ...), or `accepted` once
    /// its row is written (before it is said), `error` for a message Herald could not read,
    /// `refused` when the queue was full.
    var outcome: String
    var onsetLatencyMs: Int?
    /// Why it was not played; for `error`, `field` names the part of the payload at fault.
    var error: String?
    var field: String?
    var topic: String
    var at = Date()

    init(hub: String, topic: String, record: AnnouncementRecord, outcome: String? = nil) {
        self.hub = hub
        self.topic = topic
        id = record.id
        requestId = record.requestID
        self.outcome = outcome ?? record.outcome?.rawValue ?? "queued"
        onsetLatencyMs = record.onsetLatencyMilliseconds
        error = record.error
    }

    init(hub: String, topic: String, requestID: String?, error: String, field: String?) {
        self.hub = hub
        self.topic = topic
        requestId = requestID
        outcome = "error"
        self.error = error
        self.field = field
    }

    var json: [UInt8] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(self)) ?? Data())
    }
}

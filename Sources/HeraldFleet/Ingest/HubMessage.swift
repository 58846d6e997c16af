import Foundation
import HeraldConfig
import HeraldCore

/// One message a hub published, read and checked: its status, its heartbeat or an event
/// (docs/fleet.md). What does not have the documented shape is a `HubMessageError`.
enum HubMessage: Sendable {
    /// `herald/<hub>/status`: `online` (with its version) or `offline` (its last will, a clean stop).
    case status(hub: String, state: String, version: String?, receivedAt: Date)
    /// `live`: published while the console was subscribed. A retained one handed over at subscribe
    /// time is older than it looks (the last heartbeat of a hub that may have stopped since); its
    /// time is the hub's own `at` (never later than received) and it says nothing of the status.
    case health(HubHealth, raw: String, receivedAt: Date, live: Bool)
    case event(FleetEvent, receivedAt: Date)

    var hub: String {
        switch self {
        case .status(let hub, _, _, _): hub
        case .health(let health, _, _, _): health.hub
        case .event(let event, _): event.hub
        }
    }

    /// Reads `payload` from `topic`; nil for an empty payload (a retained message being cleared).
    /// `retained`: the broker handed it over because the console subscribed, not as it was published.
    static func read(topic: String, payload: [UInt8], receivedAt: Date, retained: Bool = false) throws(HubMessageError) -> HubMessage? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard levels.count == 3, levels[0] == "herald", MQTTSettings.isTopicName(levels[1]) else {
            throw HubMessageError(topic: topic, problem: "not a hub's topic (herald/<hub>/status, health or events)")
        }
        let hub = levels[1]
        guard !payload.isEmpty else { return nil }
        // Before anything reads it: an 8 MB heartbeat was once stored and served to every page.
        let limit = HubMessageLimits.maxBytes(levels[2])
        guard payload.count <= limit else {
            throw HubMessageError(topic: topic, problem: "the payload is \(payload.count) bytes, more than the \(limit) the console reads", tooLarge: true)
        }
        // PostgreSQL's text and jsonb hold no NUL: one such message would fail its whole batch.
        if String(decoding: payload, as: UTF8.self).contains("\\u0000") || payload.contains(0) {
            throw HubMessageError(topic: topic, problem: "the payload holds a NUL character (\\u0000), which Herald never sends")
        }
        let object: [String: Any]
        do {
            guard let read = try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] else {
                throw HubMessageError(topic: topic, problem: "the payload is JSON but not an object")
            }
            object = read
        } catch let error as HubMessageError {
            throw error
        } catch {
            throw HubMessageError(topic: topic, problem: "the payload is not JSON (\(payload.count) bytes)")
        }
        if let named = object["hub"], (named as? String) != hub {
            throw HubMessageError(topic: topic, problem: "the payload names hub '\(named)', the topic '\(hub)'")
        }
        switch levels[2] {
        case "status":
            guard let state = object["state"] as? String, ["online", "offline"].contains(state) else {
                throw HubMessageError(topic: topic, problem: "state must be \"online\" or \"offline\", got \(object["state"].map { "\($0)" } ?? "none")")
            }
            return .status(hub: hub, state: state, version: (object["version"] as? String)?.clipped(HubMessageLimits.maxName), receivedAt: receivedAt)
        case "health":
            do {
                var health = try HubHealth.decode(payload)
                guard health.rooms.count <= HubMessageLimits.maxRooms else {
                    throw HubMessageError(topic: topic, problem: "the heartbeat lists \(health.rooms.count) rooms, more than the \(HubMessageLimits.maxRooms) the console reads",
                                          tooLarge: true)
                }
                health = health.clipped
                health.hub = hub
                // Stored as re-encoded after the cut, not as published: no stored string is longer.
                return .health(health, raw: String(decoding: health.json, as: UTF8.self),
                               receivedAt: retained ? min(health.at, receivedAt) : receivedAt, live: !retained)
            } catch let error as HubMessageError {
                throw error
            } catch {
                throw HubMessageError(topic: topic, problem: "not a heartbeat: \(Self.describe(error))")
            }
        case "events":
            guard let outcome = object["outcome"] as? String, !outcome.isEmpty, outcome.count <= 64 else {
                throw HubMessageError(topic: topic, problem: "an event needs an outcome (played, failed, accepted, ...)")
            }
            let at = (object["at"] as? String).flatMap { try? Date($0, strategy: .iso8601) } ?? receivedAt
            let event = FleetEvent(hub: hub, at: at, outcome: outcome, announcement: (object["id"] as? String)?.clipped(HubMessageLimits.maxName),
                                   requestID: (object["request_id"] as? String)?.clipped(HubMessageLimits.maxName),
                                   error: (object["error"] as? String)?.clipped(HubMessageLimits.maxError),
                                   body: String(decoding: payload, as: UTF8.self))
            return .event(event, receivedAt: receivedAt)
        default:
            throw HubMessageError(topic: topic, problem: "'\(levels[2])' is not a topic the console reads (status, health, events)")
        }
    }

    /// A decoding error as a sentence naming the field.
    static func describe(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context): return "\((path(context).isEmpty ? "" : path(context) + ".") + key.stringValue) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\(path(context)): \(context.debugDescription)"
        case .dataCorrupted(let context): return "\(path(context).isEmpty ? "the payload" : path(context)): \(context.debugDescription)"
        default: return "\(error)"
        }
    }
}

/// What a hub published on `herald/<hub>/events`, as the console keeps it.
struct FleetEvent: Sendable, Encodable {
    var hub: String
    var at: Date
    var outcome: String
    /// The announcement's id on the hub; nil for a message the hub could not read.
    var announcement: String?
    var requestID: String?
    var error: String?
    /// The payload as published.
    var body: String

    enum CodingKeys: String, CodingKey {
        case hub, at, outcome, announcement, error
        case requestID = "request_id"
    }
}

/// A hub's message the console could not use, and why.
struct HubMessageError: Error, CustomStringConvertible {
    var topic: String
    var problem: String
    /// Over `HubMessageLimits`' size or room count (counted apart in `/metrics`).
    var tooLarge = false
    var description: String { "\(topic): \(problem)" }
}

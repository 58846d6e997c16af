import Foundation
import HeraldTesting

/// What a till, a payment backend and a caregiver send: payments with request ids over HTTP and
/// MQTT (some sent twice, some of those at once), texts of every priority, reminders falling due
/// (some repeated until acknowledged). Each is sent again until the hub takes it, as a careful
/// sender does; the request id makes that harmless.
struct Traffic: Sendable {
    let herald: HeraldUnderTest
    let broker: Broker
    let history: History
    let deadline: Date
    /// The house has three rooms (`HeraldUnderTest.roomsConfig`): texts name some of them.
    var rooms = false
    /// Seconds between two sends. The default (1 to 5, 20 a minute) keeps the queue busy; a soak
    /// of hours paces them (`--few-faults`: 2 to 8) so three rooms keep up, since a queue that stays
    /// full makes every `normal` one fail at its 30-minute max age (the first 2-hour run).
    var spacing: ClosedRange<Double> = 1...5
    static let priorities = ["low", "normal", "high", "critical"]
    /// What a text names in a house with rooms: nothing (every room), one room, two, a group.
    static let roomChoices = ["", #", "rooms": ["counter"]"#, #", "rooms": ["kitchen", "back"]"#, #", "rooms": ["shop"]"#]

    /// Sends until `deadline`, at random moments from `random`.
    func run(random: inout SeededRandom) async {
        var number = 0
        while Date() < deadline {
            try? await Task.sleep(for: .seconds(random: spacing, using: &random))
            number += 1
            let roll = Double.random(in: 0..<1, using: &random)
            let cents = Int.random(in: 100...99_999, using: &random)
            let amount = "\(cents / 100).\(String(format: "%02d", cents % 100))"
            let twice = Double.random(in: 0..<1, using: &random) < 0.2
            let atOnce = Double.random(in: 0..<1, using: &random) < 0.5
            let later = Duration.seconds(random: 0.5...6, using: &random)
            if roll < 0.4 {
                let id = "pay-\(number)"
                let json = #"{"payment": {"amount": "\#(amount)", "currency": "USD"}, "request_id": "\#(id)"}"#
                send(.http, id: id, priority: "normal", json: json, twice: twice, atOnce: atOnce, later: later)
            } else if roll < 0.6 {
                let id = "mqtt-\(number)"
                let json = #"{"payment": {"amount": "\#(amount)", "currency": "USD"}, "request_id": "\#(id)"}"#
                send(.mqtt, id: id, priority: "normal", json: json, twice: twice, atOnce: atOnce, later: later)
            } else if roll < 0.9 {
                let id = "text-\(number)"
                let priority = Self.priorities.randomElement(using: &random)!
                // Drawn only with rooms: a seed's schedule without them stays as it was.
                let where_ = rooms ? Self.roomChoices.randomElement(using: &random)! : ""
                let json = #"{"text": "Message \#(number), table \#(cents % 40) is ready", "priority": "\#(priority)", "request_id": "\#(id)"\#(where_)}"#
                send(.http, id: id, priority: priority, json: json, twice: twice, atOnce: atOnce, later: later)
            } else {
                let repeats = Double.random(in: 0..<1, using: &random) < 0.5
                let acks = Double.random(in: 0..<1, using: &random) < 0.5
                // Due, repeated and acknowledged before the soak ends.
                guard deadline.timeIntervalSinceNow > 100 else { continue }
                Task { [number] in await remind(number: number, repeats: repeats, acks: repeats && acks) }
            }
        }
    }

    private func send(_ channel: History.Channel, id: String, priority: String, json: String,
                      twice: Bool, atOnce: Bool, later: Duration) {
        history.sent(.init(requestID: id, channel: channel, priority: priority, body: json, sentAt: Date()))
        Task { await deliver(channel, id: id, json: json) }
        guard twice else { return }
        Task {
            if !atOnce { try? await Task.sleep(for: later) }
            history.sentAgain(id)
            await deliver(channel, id: id, json: json)
        }
    }

    /// Sends until the hub takes it (or refuses it for good).
    func deliver(_ channel: History.Channel, id: String, json: String) async {
        while true {
            switch channel {
            case .http:
                if let answer = try? await herald.call("POST", "/v1/announcements", json: json, timeout: .seconds(10)) {
                    if answer.status == 200 || answer.status == 202 { history.accepted(id); return }
                    if (400..<500).contains(answer.status) && answer.status != 429 {
                        history.refused(id, "HTTP \(answer.status): \(answer.body)")
                        return
                    }
                }
            case .mqtt:
                if history.isAccepted(id) { return }
                if await broker.publish(topic: "herald/soak/announce", message: json) {
                    // The documented backend: publish again until the hub says it has it.
                    for _ in 0..<40 {
                        if broker.acknowledged(requestID: id) { history.accepted(id); return }
                        try? await Task.sleep(for: .milliseconds(250))
                    }
                }
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// A one-shot reminder at the next whole minute at least 20 s away, in UTC.
    func remind(number: Int, repeats: Bool, acks: Bool) async {
        var due = Date().addingTimeInterval(20)
        due = Date(timeIntervalSince1970: (due.timeIntervalSince1970 / 60).rounded(.up) * 60)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm"
        let text = "Reminder \(number), time for your pills"
        let repetition = repeats ? #", "repeat": {"every": "1m", "times": 1}"# : ""
        let json = #"{"text": "\#(text)", "time_zone": "UTC", "schedule": {"at": "\#(formatter.string(from: due))"}\#(repetition)}"#
        var id: String?
        while id == nil, Date() < due.addingTimeInterval(-5) {
            if let answer = try? await herald.call("POST", "/v1/reminders", json: json), answer.status == 201 {
                id = answer.body["id"] as? String
            } else {
                try? await Task.sleep(for: .seconds(1))
            }
        }
        guard let id else { return }
        history.made(.init(id: id, text: text, due: due, repeats: repeats))
        guard acks else { return }
        // Acknowledged a little after it was first due, as a person would.
        try? await Task.sleep(for: .seconds(due.timeIntervalSinceNow + 15))
        for _ in 0..<20 {
            if let answer = try? await herald.call("POST", "/v1/reminders/\(id)/ack", json: #"{"by": "soak"}"#) {
                if answer.status == 200 { history.acked(id) }
                return
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}

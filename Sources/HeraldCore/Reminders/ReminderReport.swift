import Foundation

/// The caregiver's week (`herald remind report --week`, `GET /v1/reminders/report?days=7`): per
/// reminder, and per calendar for a calendar's firings, how many were said on time, late,
/// missed, acknowledged and by whom, and the median time to an acknowledgement, as medication
/// dispensers report adherence.
public struct ReminderReport: Sendable, Encodable, Equatable {
    /// One occurrence as the log has it: its first saying (or its `missed` row).
    public struct Firing: Sendable, Equatable {
        public var reminderID: String
        public var due: Date
        /// `played`, `late`, `missed`, or what else the row says (`failed`, `expired`...).
        public var outcome: String
        public var text: String

        public init(reminderID: String, due: Date, outcome: String, text: String) {
            self.reminderID = reminderID
            self.due = due
            self.outcome = outcome
            self.text = text
        }
    }

    /// An acknowledgement: of which occurrence, when, by whom.
    public struct Ack: Sendable, Equatable {
        public var reminderID: String
        public var due: Date
        public var at: Date
        public var by: String

        public init(reminderID: String, due: Date, at: Date, by: String) {
            self.reminderID = reminderID
            self.due = due
            self.at = at
            self.by = by
        }
    }

    public struct Line: Sendable, Encodable, Equatable {
        /// The reminder's id, or `calendar:<name>` for every firing of a calendar.
        public var name: String
        /// What the last of its firings said.
        public var text: String
        public var firings = 0
        public var onTime = 0
        public var late = 0
        public var missed = 0
        /// Said neither on time nor late (failed, expired, cancelled).
        public var notSaid = 0
        public var acknowledged = 0
        public var acknowledgedBy: [String: Int] = [:]
        public var medianSecondsToAcknowledge: Double?

        enum CodingKeys: String, CodingKey {
            case name, text, firings, late, missed, acknowledged
            case onTime = "on_time", notSaid = "not_said", acknowledgedBy = "acknowledged_by",
                 medianSecondsToAcknowledge = "median_seconds_to_acknowledge"
        }
    }

    public var from: Date
    public var to: Date
    public var lines: [Line]

    /// The report of `firings` and `acks` due in `from ..< to`, a line per reminder or calendar.
    public init(firings: [Firing], acks: [Ack], from: Date, to: Date) {
        self.from = from
        self.to = to
        func line(of reminderID: String) -> String {
            reminderID.hasPrefix("calendar:") ? reminderID.split(separator: ":").prefix(2).joined(separator: ":") : reminderID
        }
        var lines: [String: Line] = [:]
        for firing in firings.sorted(by: { $0.due < $1.due }) where firing.due >= from && firing.due < to {
            let name = line(of: firing.reminderID)
            var entry = lines[name] ?? Line(name: name, text: firing.text)
            entry.text = firing.text
            entry.firings += 1
            switch firing.outcome {
            case "played": entry.onTime += 1
            case "late": entry.late += 1
            case "missed": entry.missed += 1
            default: entry.notSaid += 1
            }
            lines[name] = entry
        }
        // An acknowledgement counts for a firing of the report, matched by reminder and due time.
        let counted = Set(firings.filter { $0.due >= from && $0.due < to }.map { "\($0.reminderID)|\($0.due.timeIntervalSince1970)" })
        var waits: [String: [Double]] = [:]
        for ack in acks where counted.contains("\(ack.reminderID)|\(ack.due.timeIntervalSince1970)") {
            let name = line(of: ack.reminderID)
            guard var entry = lines[name] else { continue }
            entry.acknowledged += 1
            entry.acknowledgedBy[ack.by, default: 0] += 1
            lines[name] = entry
            waits[name, default: []].append(max(0, ack.at.timeIntervalSince(ack.due)))
        }
        for (name, seconds) in waits {
            let sorted = seconds.sorted()
            let middle = sorted.count / 2
            lines[name]?.medianSecondsToAcknowledge = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
        self.lines = lines.values.sorted { $0.name < $1.name }
    }
}

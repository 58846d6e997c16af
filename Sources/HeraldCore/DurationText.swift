import Foundation

/// Durations as people write them in config files and messages: `90s`, `5m`, `2h`, `700ms`.
///
/// One parser for every duration Herald reads, so `priorities.low.max_age: 5m` and
/// `safeguard.lead_in_by_class.bluetooth: 700ms` follow the same rules.
public enum DurationText {
    /// A unit a duration may be written in.
    public enum Unit: String, Sendable, CaseIterable {
        case milliseconds = "ms", seconds = "s", minutes = "m", hours = "h", days = "d"

        var milliseconds: Double {
            switch self {
            case .milliseconds: 1
            case .seconds: 1000
            case .minutes: 60_000
            case .hours: 3_600_000
            case .days: 86_400_000
            }
        }
    }

    /// Parses `90s`, `5m`, `2h`, `1d`, `700ms`, `1.5s`, or a plain number in `plainUnit`.
    ///
    /// Whitespace between the number and the unit is allowed; negative numbers, exponents and
    /// unknown units are not. The result is rounded to whole milliseconds.
    /// ```swift
    /// DurationText.parse("5m")                             // .seconds(300)
    /// DurationText.parse("150", plainUnit: .milliseconds)  // .milliseconds(150)
    /// ```
    /// - Returns: nil when `text` is not a duration.
    public static func parse(_ text: String, plainUnit: Unit = .seconds) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let number = trimmed.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let suffix = trimmed.dropFirst(number.count).trimmingCharacters(in: .whitespaces)
        guard !number.isEmpty, number.filter({ $0 == "." }).count <= 1, number.first != ".", number.last != "." else {
            return nil
        }
        let unit: Unit
        if suffix.isEmpty {
            unit = plainUnit
        } else if let named = Unit(rawValue: suffix) {
            unit = named
        } else {
            return nil
        }
        guard let value = Double(number), value.isFinite else { return nil }
        let milliseconds = (value * unit.milliseconds).rounded()
        // Beyond a century nothing Herald schedules makes sense, and Int64 would overflow later.
        guard milliseconds <= 3_155_760_000_000 else { return nil }
        return .milliseconds(Int64(milliseconds))
    }

    /// The shortest exact spelling: `5m`, `90s`, `2h`, `700ms`, `1d`.
    public static func format(_ duration: Duration) -> String {
        let milliseconds = duration.inMilliseconds
        for unit in Unit.allCases.reversed() {
            let size = Int(unit.milliseconds)
            if milliseconds != 0, milliseconds % size == 0 { return "\(milliseconds / size)\(unit.rawValue)" }
        }
        return milliseconds == 0 ? "0s" : "\(milliseconds)ms"
    }
}

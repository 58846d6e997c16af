import Foundation
import HeraldCore

extension ConfigValues {
    /// `priorities.<critical|high|normal|low>.mute` and `.max_age`.
    mutating func priorities(defaults: PriorityPolicies) -> PriorityPolicies {
        var policies = defaults
        for priority in Priority.allCases {
            let prefix = "priorities.\(priority.rawValue)"
            if let text = string("\(prefix).mute")?.trimmingCharacters(in: .whitespaces) {
                if text.isEmpty {
                    policies[priority].mute = nil
                } else if let mute = MutePolicy(rawValue: text.lowercased()) {
                    if priority == .critical && mute == .respect {
                        report("\(prefix).mute", "critical announcements always override a mute (a leak alarm on a muted TV must be heard); remove this line")
                    } else {
                        policies[priority].mute = mute
                    }
                } else {
                    report("\(prefix).mute", "'\(text)' is not a mute policy; use override or respect, or leave it empty for safeguard.mute")
                }
            }
            policies[priority].maxAge = duration("\(prefix).max_age", range: .seconds(1) ... .seconds(7 * 86_400))
                ?? policies[priority].maxAge
        }
        return policies
    }

    /// A duration such as `90s`, `5m`, `2h` or plain seconds, within `range`.
    mutating func duration(_ key: String, range: ClosedRange<Duration>,
                           plainUnit: DurationText.Unit = .seconds) -> Duration? {
        guard let text = string(key)?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        let bounds = "\(DurationText.format(range.lowerBound)) to \(DurationText.format(range.upperBound))"
        guard let value = DurationText.parse(text, plainUnit: plainUnit) else {
            let plain = plainUnit == .seconds ? "seconds" : "milliseconds"
            report(key, "'\(text)' is not a duration; write it like 90s, 5m or 2h (a plain number is \(plain)), from \(bounds)")
            return nil
        }
        guard range.contains(value) else {
            report(key, "\(text) is out of range; use \(bounds)")
            return nil
        }
        return value
    }
}

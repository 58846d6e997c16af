import Configuration
import Foundation
import HeraldCore

/// Reads each key through swift-configuration, parses and range-checks it, and collects problems
/// with the line the key sits on.
struct ConfigValues {
    let reader: ConfigReader
    let layout: YAMLLayout
    let file: String
    var problems: [ConfigProblem] = []

    init(reader: ConfigReader, layout: YAMLLayout, file: String) {
        self.reader = reader
        self.layout = layout
        self.file = file
    }

    mutating func configuration(defaults: HeraldConfiguration) -> HeraldConfiguration {
        var result = defaults
        result.file = file
        var safeguard = defaults.safeguard
        let sink = string("sink")
        safeguard.sinkName = (sink?.isEmpty ?? true) ? nil : sink
        // Volumes: PulseAudio percentages. 150% is the most pavucontrol offers; beyond it distorts.
        safeguard.minVolume = percent("safeguard.min_volume", range: 0...150).map(Volume.init(percent:)) ?? safeguard.minVolume
        safeguard.targetVolume = percent("safeguard.target_volume", range: 1...150).map(Volume.init(percent:)) ?? safeguard.targetVolume
        safeguard.maxVolume = percent("safeguard.max_volume", range: 1...150).map(Volume.init(percent:)) ?? safeguard.maxVolume
        safeguard.duckLevel = percent("safeguard.duck_level", range: 0...100).map { $0 / 100 } ?? safeguard.duckLevel
        safeguard.rampMilliseconds = milliseconds("safeguard.ramp_ms") ?? safeguard.rampMilliseconds
        safeguard.leadInMilliseconds = milliseconds("safeguard.lead_in_ms") ?? safeguard.leadInMilliseconds
        if let mute = string("safeguard.mute") {
            if let policy = MutePolicy(rawValue: mute.lowercased()) {
                safeguard.mutePolicy = policy
            } else {
                report("safeguard.mute", "'\(mute)' is not a mute policy; use override or respect")
            }
        }
        if safeguard.minVolume > safeguard.targetVolume {
            report("safeguard.min_volume", "\(safeguard.minVolume) is above target_volume \(safeguard.targetVolume); a raise would lower the sink. Make min_volume <= target_volume")
        }
        if safeguard.targetVolume > safeguard.maxVolume {
            report("safeguard.target_volume", "\(safeguard.targetVolume) is above max_volume \(safeguard.maxVolume); make target_volume <= max_volume")
        }
        result.safeguard = safeguard
        if let path = string("database.path"), !path.isEmpty {
            result.databasePath = path.hasPrefix("/") ? path
                : ((file as NSString).deletingLastPathComponent as NSString).appendingPathComponent(path)
        }
        return result
    }

    private mutating func report(_ key: String, _ message: String) {
        problems.append(ConfigProblem(file: file, line: layout.lines[key], key: key, message: message))
    }

    private func configKey(_ key: String) -> ConfigKey {
        ConfigKey(key.split(separator: ".").map(String.init))
    }

    private mutating func string(_ key: String) -> String? {
        guard layout.lines[key] != nil else { return nil }
        let value = reader.string(forKey: configKey(key))
        return value == "null" || value == "~" ? "" : value
    }

    /// `70%`, `70` or `70.5%`, within `range`.
    private mutating func percent(_ key: String, range: ClosedRange<Double>) -> Double? {
        guard let text = string(key)?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        let digits = text.hasSuffix("%") ? String(text.dropLast()).trimmingCharacters(in: .whitespaces) : text
        guard let value = Double(digits), value.isFinite else {
            report(key, "'\(text)' is not a percentage; write it like 70%")
            return nil
        }
        guard range.contains(value) else {
            report(key, "\(text) is out of range; use \(Int(range.lowerBound))% to \(Int(range.upperBound))%")
            return nil
        }
        return value
    }

    private mutating func milliseconds(_ key: String) -> Int? {
        guard let text = string(key)?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let value = Int(text.hasSuffix("ms") ? String(text.dropLast(2)) : text), (0...5000).contains(value) else {
            report(key, "'\(text)' is not a duration from 0 to 5000 milliseconds")
            return nil
        }
        return value
    }
}

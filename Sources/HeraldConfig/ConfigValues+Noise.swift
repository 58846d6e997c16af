import Foundation
import HeraldCore
import Yams

extension ConfigValues {
    /// The fields of a room's `noise:` section.
    static let noiseFields: Set<String> = ["source", "match", "threshold", "ratio", "max_gain", "window", "sense_delay"]

    /// A room's `noise:` (docs/noise.md); nil after reporting a problem under `prefix`.
    mutating func roomNoise(_ node: Node, prefix: String) -> NoiseSettings? {
        guard case .mapping(let mapping) = node else {
            report(prefix, "must be a section like {source: alsa_input.usb-Mic-00.mono-fallback, threshold: -50dB}")
            return nil
        }
        var texts: [String: String] = [:], match: [String: String]?
        for (keyNode, value) in mapping {
            let field = keyNode.scalar?.string ?? ""
            let key = "\(prefix).\(field)"
            guard Self.noiseFields.contains(field) else {
                report(key, "unknown field; noise has \(Self.noiseFields.sorted().joined(separator: ", "))")
                return nil
            }
            if field == "match" {
                guard let wanted = propertyMatch(value, key: key, of: "source") else { return nil }
                match = wanted
            } else {
                texts[field] = (value.scalar?.string ?? "").trimmingCharacters(in: .whitespaces)
            }
        }
        var settings: NoiseSettings
        switch (texts["source"], match) {
        case (let name?, nil) where !name.isEmpty: settings = NoiseSettings(source: .named(name))
        case (nil, let wanted?): settings = NoiseSettings(source: .matching(wanted))
        case (_?, _?):
            report(prefix, "give source or match, not both")
            return nil
        default:
            report(prefix, "needs source (a microphone's name, as pactl list short sources shows it) or match (its properties, like device.bus: usb)")
            return nil
        }
        if let text = texts["threshold"] {
            guard let value = decibels(text, key: "\(prefix).threshold", range: NoiseSettings.thresholdRange,
                                       advice: "a level in dBFS at or below 0, like -50dB (herald noise calibrate ROOM proposes one)") else { return nil }
            settings.thresholdDB = value
        }
        if let text = texts["max_gain"] {
            guard let value = decibels(text, key: "\(prefix).max_gain", range: NoiseSettings.maxGainRange,
                                       advice: "a gain from 0dB to 24dB, like 12dB") else { return nil }
            settings.maxGainDB = value
        }
        if let text = texts["ratio"] {
            guard let value = Double(text), value.isFinite, NoiseSettings.ratioRange.contains(value) else {
                report("\(prefix).ratio", "'\(text)' is not a ratio from 0.1 to 4 (dB of gain per dB of noise over the threshold), like 1.0; remove noise: to turn it off")
                return nil
            }
            settings.ratio = value
        }
        for (field, range) in [("window", NoiseSettings.windowRange), ("sense_delay", NoiseSettings.senseDelayRange)] {
            guard let text = texts[field] else { continue }
            let bounds = "\(DurationText.format(range.lowerBound)) to \(DurationText.format(range.upperBound))"
            guard let value = DurationText.parse(text), range.contains(value) else {
                report("\(prefix).\(field)", "'\(text)' is not a duration from \(bounds); write it like \(field == "window" ? "30s" : "500ms")")
                return nil
            }
            if field == "window" { settings.window = value } else { settings.senseDelay = value }
        }
        return settings
    }

    /// `-50dB`, `-50 dB` or `-50`, within `range`; nil after reporting it under `key`.
    private mutating func decibels(_ text: String, key: String, range: ClosedRange<Double>, advice: String) -> Double? {
        var digits = text
        if digits.lowercased().hasSuffix("db") { digits = String(digits.dropLast(2)).trimmingCharacters(in: .whitespaces) }
        guard let value = Double(digits), value.isFinite, range.contains(value) else {
            report(key, "'\(text)' is out of range or not a level; use \(advice)")
            return nil
        }
        return value
    }

    /// A `match:` section: properties and the values they must have; nil after reporting it.
    /// - Parameter kind: `sink` or `source`, for the advice (`pactl list sinks` shows them).
    mutating func propertyMatch(_ node: Node, key: String, of kind: String) -> [String: String]? {
        let advice = "must be \(kind) properties and their values, like {device.bus: usb} (pactl list \(kind)s shows them)"
        guard case .mapping(let properties) = node, !properties.isEmpty else {
            report(key, advice)
            return nil
        }
        var wanted: [String: String] = [:]
        for (keyNode, value) in properties {
            guard let property = keyNode.scalar?.string, let text = value.scalar?.string, !property.isEmpty, !text.isEmpty else {
                report(key, advice)
                return nil
            }
            wanted[property] = text
        }
        return wanted
    }
}

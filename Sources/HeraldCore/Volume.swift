/// A PulseAudio volume in raw units, where `Volume.norm` (0x10000) is 100%.
///
/// Percentages here are PulseAudio's, the ones `pactl` and pavucontrol show: linear in raw units,
/// so 70% is `0x10000 * 70 / 100`. The perceived loudness follows PulseAudio's cubic curve.
public struct Volume: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The raw `pa_volume_t` value.
    public var raw: UInt32

    /// 100%: PulseAudio's `PA_VOLUME_NORM`.
    public static let norm = Volume(raw: 0x10000)
    /// Silence: PulseAudio's `PA_VOLUME_MUTED`.
    public static let muted = Volume(raw: 0)

    public init(raw: UInt32) { self.raw = raw }

    /// The volume that `pactl` shows as `percent`%.
    public init(percent: Double) {
        let raw = (Double(Volume.norm.raw) * percent / 100).rounded()
        self.raw = UInt32(max(0, min(raw, Double(UInt32.max))))
    }

    /// The percentage as `pactl` rounds it.
    public var percent: Int { Int((Double(raw) * 100 / Double(Volume.norm.raw)).rounded()) }

    /// The exact percentage, for arithmetic and reports.
    public var exactPercent: Double { Double(raw) * 100 / Double(Volume.norm.raw) }

    public var description: String { "\(percent)%" }

    public static func < (lhs: Volume, rhs: Volume) -> Bool { lhs.raw < rhs.raw }

    /// Stored and printed as the bare raw number, exact and compact.
    public init(from decoder: any Decoder) throws {
        raw = try decoder.singleValueContainer().decode(UInt32.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(raw)
    }
}

/// Per-channel volumes of a sink or a stream, in the order of its channel map.
public struct ChannelVolumes: Hashable, Codable, Sendable, CustomStringConvertible {
    public var channels: [Volume]

    public init(_ channels: [Volume]) { self.channels = channels }

    /// Stored and printed as a bare array of raw volumes, one per channel.
    public init(from decoder: any Decoder) throws {
        channels = try decoder.singleValueContainer().decode([Volume].self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(channels)
    }

    /// The same volume on `count` channels.
    public init(uniform volume: Volume, count: Int) {
        channels = Array(repeating: volume, count: count)
    }

    /// The loudest channel: what the safeguard compares with `min_volume`.
    public var loudest: Volume { channels.max() ?? .muted }

    /// Every channel multiplied by `factor`, rounded to the nearest raw unit.
    public func scaled(by factor: Double) -> ChannelVolumes {
        ChannelVolumes(channels.map { Volume(raw: UInt32((Double($0.raw) * factor).rounded())) })
    }

    /// `"30% 10%"`, or a single figure when every channel is the same.
    public var description: String {
        if let first = channels.first, channels.allSatisfy({ $0 == first }) { return first.description }
        return channels.map(\.description).joined(separator: " ")
    }
}

/// A named place with a speaker (DESIGN.md "Rooms"): its sink, found by name or by the sink's
/// properties, and its own safeguard and quiet hours where they differ from the house's.
public struct Room: Sendable, Equatable {
    /// How a room finds its sink among those the server has now.
    public enum SinkSelector: Sendable, Equatable, CustomStringConvertible {
        /// The server's default sink at the time of playing (the `default` room without `sink:`).
        case serverDefault
        /// The sink of this exact name.
        case named(String)
        /// The one sink whose properties hold every one of these values (`device.bus: usb`), so a
        /// USB speaker is found on whatever port it is plugged into.
        case matching([String: String])

        public var description: String {
            switch self {
            case .serverDefault: "the default sink"
            case .named(let name): name
            case .matching(let properties):
                "the one with " + properties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
            }
        }
    }

    /// What a selector found among the sinks present.
    public enum Pick: Sendable, Equatable {
        case found(SinkState)
        /// No sink answers (a speaker unplugged, or none by that name yet).
        case absent
        /// A match that fits more than one sink: none is picked, and these are named.
        case ambiguous([String])
    }

    public var name: String
    public var sink: SinkSelector
    /// The house's safeguard with this room's overrides.
    public var safeguard: SafeguardSettings
    /// This room's quiet windows; nil keeps the house's (`quiet_hours.windows`).
    public var quietWindows: [QuietWindow]?
    /// Its microphone and how announcements follow the room's noise; nil: a fixed target.
    public var noise: NoiseSettings?
    /// The time from its sink to its listener that the sink does not report (a Bluetooth
    /// speaker's own buffer, a loopback to another device): `rooms.<room>.latency_offset`.
    public var latencyOffset: Duration = .zero

    public init(name: String, sink: SinkSelector, safeguard: SafeguardSettings, quietWindows: [QuietWindow]? = nil,
                noise: NoiseSettings? = nil) {
        self.name = name
        self.sink = sink
        self.safeguard = safeguard
        self.quietWindows = quietWindows
        self.noise = noise
    }

    /// This room's sink among `sinks`; `defaultSink` is the server's default sink's name.
    public func pick(from sinks: [SinkState], defaultSink: String?) -> Pick {
        switch sink {
        case .serverDefault:
            guard let defaultSink, let found = sinks.first(where: { $0.name == defaultSink }) else { return .absent }
            return .found(found)
        case .named(let name):
            return sinks.first { $0.name == name }.map(Pick.found) ?? .absent
        case .matching(let properties):
            let fitting = Room.fitting(sinks, properties, \.properties)
            switch fitting.count {
            case 0: return .absent
            case 1: return .found(fitting[0])
            default: return .ambiguous(fitting.map(\.name))
            }
        }
    }
}

extension Room {
    /// The items whose properties hold every wanted value: a room's sink `match:`, and its
    /// microphone's (`noise.match`).
    public static func fitting<Item>(_ items: [Item], _ wanted: [String: String], _ properties: (Item) -> [String: String]) -> [Item] {
        items.filter { item in
            let has = properties(item)
            return wanted.allSatisfy { has[$0.key] == $0.value }
        }
    }
}

/// A room's noise compensation (`rooms.<room>.noise`): a microphone in the room is listened to
/// between announcements, and an announcement is raised by `(floor - threshold) x ratio` dB, at
/// most `max_gain`, as paging systems' ambient noise compensation does (docs/noise.md).
public struct NoiseSettings: Sendable, Equatable {
    /// How a room finds its microphone among the sound server's sources.
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        /// The source of this exact name (`pactl list short sources`).
        case named(String)
        /// The one source whose properties hold every one of these values (`device.bus: usb`).
        case matching([String: String])

        public var description: String {
            switch self {
            case .named(let name): name
            case .matching(let properties):
                "fitting " + properties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
            }
        }
    }

    public var source: Source
    /// The noise floor, in dBFS, above which the announcement is raised.
    public var thresholdDB: Double
    /// dB of gain per dB of noise over the threshold.
    public var ratio: Double
    /// The most an announcement is raised, in dB.
    public var maxGainDB: Double
    /// How much of the room's recent past the floor is taken from.
    public var window: Duration
    /// How long after Herald stops speaking in the room before it listens again: its own voice
    /// (and the room's echo of it) is never measured as noise.
    public var senseDelay: Duration

    public init(source: Source, thresholdDB: Double = -50, ratio: Double = 1, maxGainDB: Double = 12,
                window: Duration = .seconds(30), senseDelay: Duration = .milliseconds(500)) {
        self.source = source
        self.thresholdDB = thresholdDB
        self.ratio = ratio
        self.maxGainDB = maxGainDB
        self.window = window
        self.senseDelay = senseDelay
    }

    /// The limits `config check` holds them to.
    public static let thresholdRange: ClosedRange<Double> = -100...0
    public static let ratioRange: ClosedRange<Double> = 0.1...4
    public static let maxGainRange: ClosedRange<Double> = 0...24
    public static let windowRange: ClosedRange<Duration> = .seconds(5) ... .seconds(600)
    /// At least 200 ms: a block of 100 ms and a fragment of 50 ms recorded while Herald spoke
    /// would otherwise be measured after it.
    public static let senseDelayRange: ClosedRange<Duration> = .milliseconds(200) ... .seconds(10)

    /// Which of `sources` (name and properties) this setting picks: its name, nil when none fits,
    /// or the names of all that fit when a match fits more than one.
    public func pick(from sources: [(name: String, properties: [String: String])]) -> Result<String, PickProblem> {
        switch source {
        case .named(let name):
            return sources.contains { $0.name == name } ? .success(name) : .failure(.absent)
        case .matching(let wanted):
            let fitting = Room.fitting(sources, wanted, \.properties).map(\.name)
            switch fitting.count {
            case 0: return .failure(.absent)
            case 1: return .success(fitting[0])
            default: return .failure(.ambiguous(fitting))
            }
        }
    }

    /// Why no source was picked.
    public enum PickProblem: Error, Sendable, Equatable {
        case absent
        case ambiguous([String])
    }
}

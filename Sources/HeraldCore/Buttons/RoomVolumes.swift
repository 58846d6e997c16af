import Synchronization

/// Each room's volume as its buttons set it (`volume_up`, `volume_down`), over the config's
/// `target_volume`: kept in the database (`room_volume`) and read here by every announcement.
public final class RoomVolumes: Sendable {
    private let levels = Mutex<[String: Int]>([:])

    /// The step of one press, in percent.
    public static let step = 10
    /// The lowest level a press sets: an announcement stays audible.
    public static let lowest = 10

    public init() {}

    /// Replaces every room's level (read from the database at a start).
    public func replace(_ percents: [String: Int]) { levels.withLock { $0 = percents } }

    /// Every room's level.
    public var all: [String: Int] { levels.withLock { $0 } }

    public func percent(of room: String) -> Int? { levels.withLock { $0[room] } }

    public func set(_ percent: Int, for room: String) { levels.withLock { $0[room] = percent } }

    /// `settings` with the room's button level, if it has one: the level is what a quieter sink
    /// is raised to, and the floor below which it is raised (so a press down makes the next
    /// announcement quieter when the sink was raised, and never lowers a sink someone set
    /// louder), never above `max_volume`.
    public func applied(to settings: SafeguardSettings, room: String) -> SafeguardSettings {
        guard let percent = percent(of: room) else { return settings }
        var settings = settings
        settings.targetVolume = min(Volume(percent: Double(percent)), settings.maxVolume)
        settings.minVolume = settings.targetVolume
        return settings
    }

    /// The level one press in `direction` (+1 or -1) makes of `current`, within `lowest...max`.
    public static func stepped(_ current: Int, by direction: Int, max: Volume) -> Int {
        Swift.min(Swift.max(current + direction * step, lowest), max.percent)
    }
}

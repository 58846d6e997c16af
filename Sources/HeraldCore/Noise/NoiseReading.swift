/// What a room's microphone says now (`/v1/status`, `herald status`, the page, the heartbeat):
/// the floor measured and the gain an announcement made now would get, or why it has none.
public struct NoiseReading: Codable, Sendable, Equatable {
    /// The source it listens to; nil when none is found.
    public var source: String?
    /// The noise floor in dBFS (one decimal); nil until enough of the room was heard.
    public var floorDBFS: Double?
    /// The gain in dB an announcement made now would get (one decimal): 0 without a floor.
    public var gainDB: Double
    /// Why the room is not measured, or what is odd about it (missing, muted, digital silence);
    /// nil when all is well.
    public var problem: String?

    public init(source: String?, floorDBFS: Double?, gainDB: Double, problem: String?) {
        self.source = source
        self.floorDBFS = floorDBFS.map(Self.tenth)
        self.gainDB = Self.tenth(gainDB)
        self.problem = problem
    }

    enum CodingKeys: String, CodingKey {
        case source, problem
        case floorDBFS = "floor_dbfs", gainDB = "gain_db"
    }

    public static func tenth(_ value: Double) -> Double { (value * 10).rounded() / 10 }

    /// One line for people: `floor -41.3 dBFS on alsa_input.usb-Mic; an announcement now gets
    /// +8.7 dB`, or the problem and the gain (0).
    public var text: String {
        let heard = floorDBFS.map { "floor \($0) dBFS" } ?? "no floor yet"
        let gain = "an announcement now gets +\(gainDB) dB"
        if let problem { return "\(problem); \(gain)" }
        return "\(heard) on \(source ?? "?"); \(gain)"
    }
}

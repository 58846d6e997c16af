/// How one room of an announcement ended (DESIGN.md "Rooms"): the log keeps one per room beside
/// the announcement's overall outcome.
public struct RoomOutcome: Sendable, Codable, Equatable {
    public var room: String
    /// The sink the room was played on; nil when it had none (unplugged, or a match of two).
    public var sink: String?
    public var outcome: Outcome
    /// From the request to this room's first audible sample.
    public var onsetLatencyMilliseconds: Int?
    public var error: String?
    /// The loudest channel of its sink while it played, in percent (after any raise).
    public var volumePercent: Int?
    /// The room's noise floor when it opened, in dBFS, and the gain it was given for it
    /// (`rooms.<room>.noise`); nil without a microphone or before one was heard.
    public var noiseFloorDBFS: Double?
    public var noiseGainDB: Double?

    enum CodingKeys: String, CodingKey {
        case room, sink, outcome, error
        case onsetLatencyMilliseconds = "onset_latency_ms"
        case volumePercent = "volume_percent"
        case noiseFloorDBFS = "noise_floor_dbfs", noiseGainDB = "noise_gain_db"
    }

    public init(room: String, sink: String?, outcome: Outcome, onsetLatencyMilliseconds: Int? = nil, error: String? = nil) {
        self.room = room
        self.sink = sink
        self.outcome = outcome
        self.onsetLatencyMilliseconds = onsetLatencyMilliseconds
        self.error = error
    }

    /// The announcement's outcome from its rooms': `played` when every room played, `partial`
    /// when some did, else the first room's (all interrupted, all muted, all failed).
    public static func overall(_ rooms: [RoomOutcome]) -> Outcome? {
        guard let first = rooms.first else { return nil }
        let played = rooms.filter { $0.outcome == .played }.count
        if played == rooms.count { return .played }
        return played > 0 ? .partial : first.outcome
    }
}

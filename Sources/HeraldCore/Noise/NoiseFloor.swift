/// A room's noise floor: the 10th percentile of the levels of its last `window` of listening, so
/// a voice, a door slam or a burst of music does not lift it (they fill fewer than 90% of the
/// blocks), while a grinder or a television that stays on does.
///
/// The window is of time listened, not of the clock: while Herald speaks nothing is heard, and the
/// floor heard before holds (as a paging DSP holds its gain during the program), so twenty
/// announcements in a row at the lunch rush all get the rush's gain.
public struct NoiseFloor: Sendable {
    /// The fraction of blocks that lie below the floor.
    public static let percentile = 0.10
    /// Fewer blocks than this (2 s of 100 ms blocks) is no floor yet: a room just heard is not judged.
    public static let minimumBlocks = 20
    /// One block's length (`SpeechBandMeter`).
    public static let block = Duration.milliseconds(100)

    public let window: Duration
    /// The window's blocks, oldest overwritten first.
    private var levels: [Double] = []
    private var next = 0
    private let capacity: Int

    public init(window: Duration) {
        self.window = window
        capacity = max(Self.minimumBlocks, Int(window / Self.block))
    }

    /// Adds one block's level.
    public mutating func add(_ dBFS: Double) {
        if levels.count < capacity {
            levels.append(dBFS)
        } else {
            levels[next] = dBFS
            next = (next + 1) % capacity
        }
    }

    /// The floor in dBFS, or nil with too few blocks heard.
    public var floor: Double? {
        guard levels.count >= Self.minimumBlocks else { return nil }
        let sorted = levels.sorted()
        return sorted[Int(Double(sorted.count - 1) * Self.percentile)]
    }

    /// Forgets everything heard (a new microphone is a new room to learn).
    public mutating func reset() {
        levels = []
        next = 0
    }
}

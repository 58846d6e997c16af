/// Which hubs' heartbeats are due: hub `i` beats at `start + interval * (k + (i + 1) / hubs)`,
/// k = 0, 1, ...: evenly spread, none later than an interval after its last.
struct BeatSchedule {
    let hubs: Int
    let interval: Duration
    private var cycleStart: ContinuousClock.Instant
    /// Hubs of the current cycle already handed out.
    private var handed = 0

    init(hubs: Int, interval: Duration, start: ContinuousClock.Instant) {
        self.hubs = hubs
        self.interval = interval
        cycleStart = start
    }

    /// The hubs due by `now` not handed out before, as ranges of indices (two when a cycle ended).
    mutating func due(at now: ContinuousClock.Instant) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        // Paused for longer than a cycle (a publish that blocked): one whole round, not several.
        if now - cycleStart >= interval * 2 { cycleStart = now - interval }
        while hubs > 0 {
            let fraction = min(1, (now - cycleStart) / interval)
            let upTo = min(hubs, Int((fraction * Double(hubs)).rounded(.down)))
            if upTo > handed { ranges.append(handed..<upTo) }
            handed = max(handed, upTo)
            guard handed == hubs else { break }
            cycleStart += interval
            handed = 0
        }
        return ranges
    }
}

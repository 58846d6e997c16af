/// A clock that never waits: ramps run their steps at once.
public struct ImmediateClock: Clock {
    public typealias Duration = Swift.Duration
    public struct Instant: InstantProtocol {
        public var offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }
    public init() {}
    public var now: Instant { Instant(offset: .zero) }
    public var minimumResolution: Duration { .zero }
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
}

/// A clock whose time never moves: a ramp waits for its first step until it is cancelled, so a
/// test sees what was done before any step (what `open` did before it returned).
public struct StoppedClock: Clock {
    public typealias Duration = Swift.Duration
    public typealias Instant = ImmediateClock.Instant
    public init() {}
    public var now: Instant { Instant(offset: .zero) }
    public var minimumResolution: Duration { .zero }
    /// Sleeps until the sleeping task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}

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

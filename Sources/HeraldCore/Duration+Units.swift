extension Duration {
    /// The duration in seconds, as a floating-point figure (for reports and rates).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in whole microseconds, rounded down (the unit of libpulse's times).
    public var inMicroseconds: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }

    /// The duration in whole milliseconds, rounded down.
    public var inMilliseconds: Int {
        Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }
}

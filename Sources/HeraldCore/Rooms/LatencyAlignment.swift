/// Rooms heard in step on speakers whose latencies differ (DESIGN.md "Rooms"): a Bluetooth
/// speaker is heard 150 to 250 ms after its samples are written, a USB one 20 to 50 ms, a sink
/// tunnelled to another machine after the network's and the far sink's buffers. Every room's
/// first sample is held back by how much sooner its device would be heard than the slowest
/// room's, so that all reach their listeners at once.
public enum LatencyAlignment {
    /// How long each room is held back, in order: the slowest room's latency minus its own. A
    /// room whose latency is not known counts as zero (its `latency_offset` still counts).
    public static func holds(_ latencies: [Duration]) -> [Duration] {
        let slowest = latencies.max() ?? .zero
        return latencies.map { slowest - $0 }
    }

    /// How long after it is uncorked a sink's first sample is heard, for the next announcement:
    /// what the last one measured there (`learned`, from its onset), else what the sink reports
    /// while the stream waits corked, at most `maximumReported`. The corked reading is only a
    /// first guess: a sink that buffers far ahead (an idle card, up to 2 s) rewinds for a new
    /// stream and is heard at once, while a tunnel or a Bluetooth sink cannot rewind.
    public static func startDelay(learned: Duration?, reported: Duration) -> Duration {
        learned ?? min(reported, maximumReported)
    }

    /// The most a corked reading counts for before a sink has been measured.
    public static let maximumReported = Duration.milliseconds(500)
    /// The most a measured start delay counts for: a sink slower than this is broken, and
    /// holding every other room back that long would be worse than the echo.
    public static let maximumStartDelay = Duration.seconds(1)

    /// When a stream's first sample reaches its listener, from one reading of its timing: at
    /// `readingAt`, the sink had read `readSinceStart` of the stream's audio, and what it reads is
    /// heard `sinkLatency` later, and `offset` later again where the room's speaker adds a delay
    /// the sink does not report. Measured this way for every room, whatever its sink, and
    /// whenever the reading comes (the server's "started" notice can come tens of ms late).
    public static func onset<Instant: InstantProtocol>(readingAt: Instant, readSinceStart: Duration, sinkLatency: Duration,
                                                       offset: Duration) -> Instant where Instant.Duration == Duration {
        readingAt.advanced(by: sinkLatency + offset - readSinceStart)
    }

    /// The largest `latency_offset` a room may have: a speaker heard seconds after its samples is
    /// broken, not slow, and holding every other room back that long would be worse.
    public static let maximumOffset = Duration.seconds(2)
}

/// What a resident daemon asks of its connection to the sound server beyond the safeguard's
/// calls: PulseAudio in production, an in-memory fake in tests (`HeraldTesting`).
///
/// The extra calls are synchronous, as PulseAudio's are (they only take the mainloop lock).
/// A class, so the daemon can tell whether its safeguard session is on the connection it has now.
public protocol SoundConnection: SoundSystem, AnyObject {
    /// False once the server went away: a new connection is needed.
    var isConnected: Bool { get }
    /// Keeps a corked stream open on `sinkName` in `format`, so the next announcement in that
    /// format starts without creating one; returns at once.
    func keepWarm(onSink sinkName: String, format: AudioFormat, mediaRole: String) throws
    /// Pauses or resumes what this connection is playing; false when nothing plays.
    func setPlaybackPaused(_ paused: Bool) -> Bool
}

extension SoundConnection {
    /// A warm stream for announcements (media role `event`).
    public func keepWarm(onSink sinkName: String, format: AudioFormat) throws {
        try keepWarm(onSink: sinkName, format: format, mediaRole: "event")
    }
}

/// The snapshot of everything the safeguard changes, persisted before the first change
/// (DESIGN.md rule 9), so a crash never leaves a raised volume or a ducked radio behind.
public struct JournalEntry: Codable, Sendable, Equatable {
    public var sinkName: String
    public var originalVolumes: ChannelVolumes
    public var originalMuted: Bool
    /// The volumes Herald set on the sink; nil when it did not raise.
    public var setVolumes: ChannelVolumes?
    /// True when Herald unmuted the sink.
    public var unmuted: Bool
    /// The streams Herald ducked, with their own volumes before.
    public var ducks: [DuckPlan]
    /// The process that holds the safeguard, for `herald status`.
    public var processID: Int32
    /// The run of the sound server the changes were made on (`ServerInfo.instance`); nil in a
    /// journal of an earlier version or from a server that has none.
    public var serverInstance: UInt32?
    /// True once every ducked stream reached its ducked volume (the ramp down is over), until the
    /// close starts ramping them back. After a crash, a stream then at anything but its ducked
    /// volume was set by a person; while ramps ran, any value between ducked and its own may be
    /// Herald's. Nil in a journal of an earlier version: read as ramps running.
    public var streamsSettled: Bool?
    /// The sink's volume and mute as a person set them while the safeguard was open (each only
    /// once it differs from what Herald set or left). A server that comes back at its defaults
    /// gets these back rather than the values from before: the person chose them last.
    public var userVolumes: ChannelVolumes?
    public var userMuted: Bool?

    public init(sinkName: String, originalVolumes: ChannelVolumes, originalMuted: Bool,
                setVolumes: ChannelVolumes?, unmuted: Bool, ducks: [DuckPlan], processID: Int32) {
        self.sinkName = sinkName
        self.originalVolumes = originalVolumes
        self.originalMuted = originalMuted
        self.setVolumes = setVolumes
        self.unmuted = unmuted
        self.ducks = ducks
        self.processID = processID
    }
}

/// Durable storage for the pending `JournalEntry` of each sink: an announcement to several rooms
/// holds one safeguard per room's sink, and a crash in the middle must restore every one.
public protocol RestoreJournal: Sendable {
    /// Stores `entry` as its sink's (`sinkName`), durably (synced) before returning; the other
    /// sinks' entries stay as they are.
    func save(_ entry: JournalEntry) async throws
    /// The entries left by safeguards that did not close, one per sink, in sink name order.
    func pending() async throws -> [JournalEntry]
    /// Forgets `sinkName`'s entry once everything on it is restored.
    func clear(sinkName: String) async throws
}

extension JournalEntry {
    /// Whether `sink`, as read now, is still as the safeguard that wrote this entry left it for
    /// speech: not muted, and not lower than the level it set (or found). A person who muted or
    /// lowered it during the last announcement, or a sound server back at its saved values, makes
    /// the next one open afresh. Compared with the session's own level, not `min_volume`: quiet
    /// hours may raise to less than that, and back-to-back announcements must not pump (rule 8).
    public func isStillReady(_ sink: SinkState) -> Bool {
        !sink.muted && sink.volumes.loudest >= (setVolumes ?? originalVolumes).loudest
    }
}

/// What the sound server says about itself.
public struct ServerInfo: Sendable, Equatable {
    public var name: String
    public var version: String
    /// The server's default sink, if it has one.
    public var defaultSinkName: String?
    /// Tells this run of the server from the next (PulseAudio's random cookie): what a sink shows
    /// after the server started again was set by nobody watching Herald's changes.
    public var instance: UInt32?

    public init(name: String, version: String, defaultSinkName: String?, instance: UInt32? = nil) {
        self.name = name
        self.version = version
        self.defaultSinkName = defaultSinkName
        self.instance = instance
    }
}

/// A sink's run state, as PulseAudio reports it.
public enum SinkRunState: String, Sendable, Codable {
    case running, idle, suspended, unknown
}

/// One output device.
public struct SinkState: Sendable, Equatable {
    public var index: UInt32
    public var name: String
    public var description: String
    public var state: SinkRunState
    public var muted: Bool
    public var volumes: ChannelVolumes
    /// Channel position names (`front-left`, ...), one per volume.
    public var channelNames: [String]
    /// The kind of device, from the sink's properties: it sizes the lead-in.
    public var deviceClass: SinkDeviceClass
    /// The sink's properties (`device.bus`, `alsa.card_name`, ...): a room may find its sink by them.
    public var properties: [String: String]
    /// How long after it is written a sample is heard, as the sink reports it now (a tunnel's
    /// includes the far sink's); nil when not known.
    public var latency: Duration?

    public init(index: UInt32, name: String, description: String, state: SinkRunState,
                muted: Bool, volumes: ChannelVolumes, channelNames: [String],
                deviceClass: SinkDeviceClass = .unknown, properties: [String: String] = [:]) {
        self.index = index
        self.name = name
        self.description = description
        self.state = state
        self.muted = muted
        self.volumes = volumes
        self.channelNames = channelNames
        self.deviceClass = deviceClass
        self.properties = properties
    }
}

/// One playback stream (a PulseAudio sink-input).
public struct StreamState: Sendable, Equatable {
    public var index: UInt32
    public var sinkIndex: UInt32
    public var volumes: ChannelVolumes
    public var muted: Bool
    public var applicationName: String?
    public var mediaRole: String?
    /// True for Herald's own playback streams, which are never ducked.
    public var isHerald: Bool

    public init(index: UInt32, sinkIndex: UInt32, volumes: ChannelVolumes, muted: Bool,
                applicationName: String?, mediaRole: String?, isHerald: Bool) {
        self.index = index
        self.sinkIndex = sinkIndex
        self.volumes = volumes
        self.muted = muted
        self.applicationName = applicationName
        self.mediaRole = mediaRole
        self.isHerald = isHerald
    }
}

/// A change the server announced.
public enum SoundEvent: Sendable, Equatable {
    case streamAppeared(index: UInt32)
    case streamVanished(index: UInt32)
    case sinkChanged(index: UInt32)
    /// A sink came or went.
    case sinkAdded(index: UInt32)
    case sinkRemoved(index: UInt32)
    /// The server's settings changed: its default sink may be another one now.
    case serverChanged
}

/// What a finished playback reports.
public struct PlaybackReport: Sendable, Equatable {
    /// From the call to the moment the first sample reached its listener (the sink's latency and
    /// the room's `latency_offset` counted), in milliseconds; where the server could not tell its
    /// timing, to the moment it started playing.
    public var startMilliseconds: Int
    /// From the call until the last sample was played (drained).
    public var totalMilliseconds: Int
    /// True when the playback was faded and stopped before its end.
    public var stoppedEarly: Bool
    /// True when it played on the connection's warm stream rather than a stream of its own.
    public var onWarmStream: Bool

    public init(startMilliseconds: Int, totalMilliseconds: Int, stoppedEarly: Bool, onWarmStream: Bool = false) {
        self.startMilliseconds = startMilliseconds
        self.totalMilliseconds = totalMilliseconds
        self.stoppedEarly = stoppedEarly
        self.onWarmStream = onWarmStream
    }
}

/// The sound server as the safeguard sees it: PulseAudio in production, an in-memory fake in tests.
///
/// Every call has a bounded wait; a lost server throws `SoundSystemError`, it never hangs.
public protocol SoundSystem: Sendable {
    func serverInfo() async throws -> ServerInfo
    /// This run of the server (`ServerInfo.instance`), nil when it cannot be known. It cannot
    /// change under one connection, so a connection may ask the server once (the default asks
    /// every time).
    func serverInstance() async -> UInt32?
    /// The sink called `name`; throws `SoundSystemError.noSuchSink` when there is none.
    func sink(named name: String) async throws -> SinkState
    /// Every sink the server has now (rooms find theirs among them).
    func sinks() async throws -> [SinkState]
    func setSinkVolume(named name: String, to volumes: ChannelVolumes) async throws
    func setSinkMute(named name: String, to muted: Bool) async throws
    /// Unmutes `name` (when `unmute`), sets `volumes` (when given), and returns the sink as it
    /// reports itself after (devices round volumes). PulseAudio sends the two changes together.
    func raiseSink(named name: String, unmute: Bool, to volumes: ChannelVolumes?) async throws -> SinkState
    /// Every playback stream on the server.
    func streams() async throws -> [StreamState]
    func setStreamVolume(index: UInt32, to volumes: ChannelVolumes) async throws
    func setStreamMute(index: UInt32, to muted: Bool) async throws
    /// Stream and sink changes, for ducking streams that appear during an announcement.
    func events() async throws -> AsyncStream<SoundEvent>
    /// Plays `audio` on the sink and returns once it has been heard to the end. A stream starts
    /// playing with its first chunk, while the rest is still being produced.
    func play(_ audio: AudioSource, onSink sink: String, mediaRole: String) async throws -> PlaybackReport
    /// Plays `audio` on every sink of `sinks` at once, in step (the rooms of one announcement),
    /// and returns one result per sink, in order: one sink failing costs the others nothing.
    func play(_ audio: AudioSource, onSinks sinks: [String], mediaRole: String) async -> [Result<PlaybackReport, any Error>]
    /// The same, calling `nearEnd` once every sink has come a few milliseconds before its last
    /// sound or ended otherwise (failed, stopped): `whole` when all are about to be heard to
    /// their end. What must be on disk before the end is heard (the said mark) is written then:
    /// a kill right after the last sound finds it. `latencyOffsets` (by sink) is the time from a
    /// sink to its listener that the sink does not report (`rooms.<room>.latency_offset`): the
    /// sinks are started so that their listeners hear the first sample at once.
    func play(_ audio: AudioSource, onSinks sinks: [String], mediaRole: String, latencyOffsets: [String: Duration],
              nearEnd: @escaping @Sendable (_ whole: Bool) -> Void) async -> [Result<PlaybackReport, any Error>]
}

extension SoundSystem {
    /// For servers that cannot tell the end ahead: `nearEnd` once the play has returned.
    public func play(_ audio: AudioSource, onSinks sinks: [String], mediaRole: String, latencyOffsets: [String: Duration],
                     nearEnd: @escaping @Sendable (_ whole: Bool) -> Void) async -> [Result<PlaybackReport, any Error>] {
        let results = await play(audio, onSinks: sinks, mediaRole: mediaRole)
        nearEnd(results.allSatisfy { (try? $0.get()).map { !$0.stoppedEarly } ?? false })
        return results
    }

    /// One change after the other, then a read: for servers that cannot send them together.
    public func raiseSink(named name: String, unmute: Bool, to volumes: ChannelVolumes?) async throws -> SinkState {
        if unmute { try await setSinkMute(named: name, to: false) }
        if let volumes { try await setSinkVolume(named: name, to: volumes) }
        return try await sink(named: name)
    }
}

/// Failures of the sound server, each with a message a person can act on.
public enum SoundSystemError: Error, Equatable, CustomStringConvertible {
    case noServer(String)
    case connectionLost(String)
    case timedOut(String)
    case noSuchSink(String)
    /// The sink was removed while Herald played on it.
    case sinkGone(String)
    case noDefaultSink
    case operationFailed(String)

    public var description: String {
        switch self {
        case .noServer(let detail):
            "no PulseAudio server reachable (\(detail)); start one (pulseaudio --start) or set PULSE_SERVER"
        case .connectionLost(let detail): "the PulseAudio server went away: \(detail)"
        case .timedOut(let what): "PulseAudio did not answer in time: \(what)"
        case .noSuchSink(let name):
            "no sink named '\(name)'; list sinks with 'pactl list short sinks' and fix 'sink' in the config"
        case .sinkGone(let name): "the sink '\(name)' went away while playing"
        case .noDefaultSink: "the server has no default sink; configure 'sink' or load an output device"
        case .operationFailed(let detail): "PulseAudio refused: \(detail)"
        }
    }
}

extension SoundSystemError {
    /// The server or the sink is not there (yet): an announcement waits for it (within its max
    /// age) rather than fail (DESIGN.md rule 1).
    public var meansWait: Bool {
        switch self {
        case .noServer, .connectionLost, .timedOut, .noSuchSink, .noDefaultSink: true
        case .sinkGone, .operationFailed: false
        }
    }

    /// The sink went away while Herald played on it: said again where the listener now listens,
    /// unless the sink is still there (someone stopped the stream).
    public var isSinkGone: Bool { if case .sinkGone = self { true } else { false } }
}

extension SoundSystem {
    public func serverInstance() async -> UInt32? { try? await serverInfo().instance }
}

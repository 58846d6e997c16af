import HeraldCore
import Synchronization

/// A sound server in memory: one sink, some streams, and a record of every change, in order.
///
/// It is also a `SoundConnection`, so a daemon can be driven with it and no sound server:
/// ```swift
/// let sound = InMemorySoundSystem(sink: nullSink(volumes: percent(30, 30)))
/// let connector = SoundConnector(logger: logger, connect: { _, _ in sound }, onConnect: { _ in }, changed: {})
/// ```
public actor InMemorySoundSystem: SoundConnection {
    public var sink: SinkState
    public var streamList: [StreamState]
    /// "duck 7 ...", "mute false", "volume ..." in the order they happened.
    public var changes: [String] = []
    /// Runs while "playing": what a user or another app does during the announcement.
    public var duringPlay: (@Sendable (InMemorySoundSystem) async -> Void)?
    /// What the sink looked like when playback started.
    public var sinkWhilePlaying: SinkState?
    public var streamsWhilePlaying: [StreamState] = []
    private var subscribers: [AsyncStream<SoundEvent>.Continuation] = []
    /// The connection's own state, read synchronously (`SoundConnection`).
    let link = Mutex((connected: true, warmSink: String?.none, playing: false, paused: false))
    /// How many times `play` was called.
    public var playCount: Int { changes.filter { $0 == "play" }.count }

    public init(sink: SinkState, streams: [StreamState] = []) {
        self.sink = sink
        self.streamList = streams
    }

    public func serverInfo() async throws -> ServerInfo {
        ServerInfo(name: "in-memory", version: "1", defaultSinkName: sink.name, instance: instance)
    }

    /// This run of the "server" (`ServerInfo.instance`).
    public private(set) var instance: UInt32 = 1

    /// The server started again with no saved state: a new instance, the sink at `sink`, no streams.
    public func restartWithDefaults(sink defaults: SinkState) {
        instance += 1
        sink = defaults
        streamList = []
    }

    public func sinks() async throws -> [SinkState] { [sink] }

    public func sink(named name: String) async throws -> SinkState {
        guard name == sink.name else { throw SoundSystemError.noSuchSink(name) }
        return sink
    }

    /// Raw units the "device" rounds every sink volume to (1 = exact), as hardware mixers do.
    public var sinkVolumeStep: UInt32 = 1
    /// (sink loudest, stream loudest) as fractions after each change, for streams watched by index.
    private var heard: [UInt32: [(Double, Double)]] = [:]

    public func setSinkVolume(named name: String, to volumes: ChannelVolumes) async throws {
        let step = sinkVolumeStep
        sink.volumes = ChannelVolumes(volumes.channels.map { Volume(raw: ($0.raw + step / 2) / step * step) })
        changes.append("sink volume \(volumes)")
        noteHeard()
    }

    public func setStreamMute(index: UInt32, to muted: Bool) async throws {
        try changeStream(index, "mute \(muted)") { $0.muted = muted }
    }

    /// Changes stream `index` as a client would, or fails as the server does when it is gone.
    private func changeStream(_ index: UInt32, _ note: String, _ change: (inout StreamState) -> Void) throws {
        guard let position = streamList.firstIndex(where: { $0.index == index }) else {
            throw SoundSystemError.operationFailed("no stream #\(index)")
        }
        change(&streamList[position])
        changes.append("stream \(index) \(note)")
        noteHeard()
    }

    /// What the listener hears of `stream` after each change: (sink, stream) loudness factors.
    public func heardAfterEachChange(stream index: UInt32) -> [(Double, Double)] { heard[index] ?? [] }

    private func noteHeard() {
        for stream in streamList {
            let sinkLevel = sink.muted ? 0 : sink.volumes.loudest.exactPercent / 100
            let streamLevel = stream.muted ? 0 : stream.volumes.loudest.exactPercent / 100
            heard[stream.index, default: []].append((sinkLevel, streamLevel))
        }
    }

    public func setSinkMute(named name: String, to muted: Bool) async throws {
        sink.muted = muted
        changes.append("sink mute \(muted)")
        noteHeard()
    }

    /// Runs once, right after the next `streams()` read: what happens between a snapshot and the rest.
    public var afterNextStreamsRead: (@Sendable (InMemorySoundSystem) async -> Void)?

    public func streams() async throws -> [StreamState] {
        let list = streamList
        if let hook = afterNextStreamsRead {
            afterNextStreamsRead = nil
            await hook(self)
        }
        return list
    }

    public func setAfterNextStreamsRead(_ hook: @escaping @Sendable (InMemorySoundSystem) async -> Void) { afterNextStreamsRead = hook }
    public func setSinkVolumeStep(_ step: UInt32) { sinkVolumeStep = step }

    public func setStreamVolume(index: UInt32, to volumes: ChannelVolumes) async throws {
        try changeStream(index, "\(volumes)") { $0.volumes = volumes }
    }

    public func events() async throws -> AsyncStream<SoundEvent> {
        let (stream, continuation) = AsyncStream<SoundEvent>.makeStream()
        subscribers.append(continuation)
        return stream
    }

    public func play(_ audio: AudioSource, onSink sink: String, mediaRole: String) async throws -> PlaybackReport {
        sinkWhilePlaying = self.sink
        streamsWhilePlaying = streamList
        changes.append("play")
        link.withLock { $0.playing = true }
        defer { link.withLock { $0.playing = false } }
        // A streaming synthesis is heard to its end: its producer may wait for the last chunk taken.
        switch audio {
        case .stream(_, let chunks): for try await chunk in chunks { samplesPlayed += chunk.count }
        case .clip(let clip): samplesPlayed += clip.samples.count
        }
        playsStarted += 1
        for waiter in startWaiters where waiter.count <= playsStarted { waiter.continuation.resume() }
        startWaiters.removeAll { $0.count <= playsStarted }
        if holding { await held() }
        if let duringPlay { await duringPlay(self) }
        try Task.checkCancellation()
        return PlaybackReport(startMilliseconds: 1, totalMilliseconds: audio.knownDurationMilliseconds ?? 0, stoppedEarly: false)
    }

    /// One sink: the sinks of a fake with one sink are all it. Each is a play of its own.
    public func play(_ audio: AudioSource, onSinks sinks: [String], mediaRole: String) async -> [Result<PlaybackReport, any Error>] {
        var results: [Result<PlaybackReport, any Error>] = []
        for sink in sinks { results.append(await Result(catchingAsync: { try await play(audio, onSink: sink, mediaRole: mediaRole) })) }
        return results
    }

    // Holding a playback: a test decides when it ends.

    /// True while plays wait in `play` for `releasePlayback()`.
    private var holding = false
    private var heldPlays: [CheckedContinuation<Void, Never>] = []
    /// Plays begun so far, and who waits for the nth.
    public private(set) var playsStarted = 0
    /// The samples every play was handed, counted as it took them: what a listener heard.
    public private(set) var samplesPlayed = 0
    private var startWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// From now on every playback stays "playing" until `releasePlayback()` (or its task is
    /// cancelled, as a fade-out ends it): what happens meanwhile happens mid-announcement.
    public func holdPlayback() { holding = true }

    /// Ends the held playbacks, and lets the next ones play to their end at once.
    public func releasePlayback() {
        holding = false
        let plays = heldPlays
        heldPlays = []
        for play in plays { play.resume() }
    }

    /// Returns once `count` playbacks have begun (the first by default).
    public func waitUntilPlaying(count: Int = 1) async {
        if playsStarted >= count { return }
        await withCheckedContinuation { startWaiters.append((count, $0)) }
    }

    private func held() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if holding && !Task.isCancelled { heldPlays.append(continuation) } else { continuation.resume() }
            }
        } onCancel: {
            Task { await self.releasePlayback() }
        }
    }

    // What a user or another application does.

    public func userSetsSinkVolume(_ volumes: ChannelVolumes) { sink.volumes = volumes }
    public func userSetsSinkMute(_ muted: Bool) { sink.muted = muted }
    public func userSetsStreamVolume(_ index: UInt32, _ volumes: ChannelVolumes) {
        if let position = streamList.firstIndex(where: { $0.index == index }) { streamList[position].volumes = volumes }
    }

    public func streamAppears(_ stream: StreamState) {
        streamList.append(stream)
        for subscriber in subscribers { subscriber.yield(.streamAppeared(index: stream.index)) }
    }

    public func streamVanishes(_ index: UInt32) {
        streamList.removeAll { $0.index == index }
        for subscriber in subscribers { subscriber.yield(.streamVanished(index: index)) }
    }

    /// The sink goes by `name` from now on (a sink that was missing under that name appears).
    public func renameSink(to name: String) {
        sink.name = name
        for subscriber in subscribers { subscriber.yield(.sinkAdded(index: sink.index)) }
    }

    public func note(_ text: String) { changes.append(text) }

    public func setDuringPlay(_ action: @escaping @Sendable (InMemorySoundSystem) async -> Void) { duringPlay = action }
}

/// What a resident daemon asks of its connection beyond the safeguard's calls: whether it is
/// still connected, a warm stream, pausing the playback. Synchronous, as PulseAudio's are.
extension InMemorySoundSystem {
    public nonisolated var isConnected: Bool { link.withLock { $0.connected } }

    public nonisolated func keepWarm(onSink sinkName: String, format: AudioFormat, mediaRole: String) throws {
        link.withLock { $0.warmSink = sinkName }
    }

    public nonisolated func setPlaybackPaused(_ paused: Bool) -> Bool {
        link.withLock { state in
            guard state.playing else { return false }
            state.paused = paused
            return true
        }
    }

    /// The sink a warm stream is kept on, if any.
    public nonisolated var warmSink: String? { link.withLock { $0.warmSink } }

    /// The server goes away: `isConnected` turns false, so a `SoundConnector` connects again.
    public nonisolated func disconnect() { link.withLock { $0.connected = false } }
}

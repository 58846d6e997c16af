import HeraldCore

/// A sound server in memory: one sink, some streams, and a record of every change, in order.
actor InMemorySoundSystem: SoundSystem {
    var sink: SinkState
    var streamList: [StreamState]
    /// "duck 7 ...", "mute false", "volume ..." in the order they happened.
    var changes: [String] = []
    /// Runs while "playing": what a user or another app does during the announcement.
    var duringPlay: (@Sendable (InMemorySoundSystem) async -> Void)?
    /// What the sink looked like when playback started.
    var sinkWhilePlaying: SinkState?
    var streamsWhilePlaying: [StreamState] = []
    private var subscribers: [AsyncStream<SoundEvent>.Continuation] = []

    init(sink: SinkState, streams: [StreamState] = []) {
        self.sink = sink
        self.streamList = streams
    }

    func serverInfo() async throws -> ServerInfo {
        ServerInfo(name: "in-memory", version: "1", defaultSinkName: sink.name)
    }

    func sink(named name: String) async throws -> SinkState {
        guard name == sink.name else { throw SoundSystemError.noSuchSink(name) }
        return sink
    }

    /// Raw units the "device" rounds every sink volume to (1 = exact), as hardware mixers do.
    var sinkVolumeStep: UInt32 = 1
    /// (sink loudest, stream loudest) as fractions after each change, for streams watched by index.
    private var heard: [UInt32: [(Double, Double)]] = [:]

    func setSinkVolume(named name: String, to volumes: ChannelVolumes) async throws {
        let step = sinkVolumeStep
        sink.volumes = ChannelVolumes(volumes.channels.map { Volume(raw: ($0.raw + step / 2) / step * step) })
        changes.append("sink volume \(volumes)")
        noteHeard()
    }

    func setStreamMute(index: UInt32, to muted: Bool) async throws {
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
    func heardAfterEachChange(stream index: UInt32) -> [(Double, Double)] { heard[index] ?? [] }

    private func noteHeard() {
        for stream in streamList {
            let sinkLevel = sink.muted ? 0 : sink.volumes.loudest.exactPercent / 100
            let streamLevel = stream.muted ? 0 : stream.volumes.loudest.exactPercent / 100
            heard[stream.index, default: []].append((sinkLevel, streamLevel))
        }
    }

    func setSinkMute(named name: String, to muted: Bool) async throws {
        sink.muted = muted
        changes.append("sink mute \(muted)")
        noteHeard()
    }

    /// Runs once, right after the next `streams()` read: what happens between a snapshot and the rest.
    var afterNextStreamsRead: (@Sendable (InMemorySoundSystem) async -> Void)?

    func streams() async throws -> [StreamState] {
        let list = streamList
        if let hook = afterNextStreamsRead {
            afterNextStreamsRead = nil
            await hook(self)
        }
        return list
    }

    func setAfterNextStreamsRead(_ hook: @escaping @Sendable (InMemorySoundSystem) async -> Void) { afterNextStreamsRead = hook }
    func setSinkVolumeStep(_ step: UInt32) { sinkVolumeStep = step }

    func setStreamVolume(index: UInt32, to volumes: ChannelVolumes) async throws {
        try changeStream(index, "\(volumes)") { $0.volumes = volumes }
    }

    func events() async throws -> AsyncStream<SoundEvent> {
        let (stream, continuation) = AsyncStream<SoundEvent>.makeStream()
        subscribers.append(continuation)
        return stream
    }

    func play(_ audio: AudioSource, onSink sink: String, mediaRole: String) async throws -> PlaybackReport {
        sinkWhilePlaying = self.sink
        streamsWhilePlaying = streamList
        changes.append("play")
        if let duringPlay { await duringPlay(self) }
        return PlaybackReport(startMilliseconds: 1, totalMilliseconds: audio.knownDurationMilliseconds ?? 0, stoppedEarly: false)
    }

    // What a user or another application does.

    func userSetsSinkVolume(_ volumes: ChannelVolumes) { sink.volumes = volumes }
    func userSetsSinkMute(_ muted: Bool) { sink.muted = muted }
    func userSetsStreamVolume(_ index: UInt32, _ volumes: ChannelVolumes) {
        if let position = streamList.firstIndex(where: { $0.index == index }) { streamList[position].volumes = volumes }
    }

    func streamAppears(_ stream: StreamState) {
        streamList.append(stream)
        for subscriber in subscribers { subscriber.yield(.streamAppeared(index: stream.index)) }
    }

    func streamVanishes(_ index: UInt32) {
        streamList.removeAll { $0.index == index }
        for subscriber in subscribers { subscriber.yield(.streamVanished(index: index)) }
    }

    func note(_ text: String) { changes.append(text) }

    func setDuringPlay(_ action: @escaping @Sendable (InMemorySoundSystem) async -> Void) { duringPlay = action }
}

/// A journal in memory that remembers every save, to check it was written before the first change.
actor InMemoryJournal: RestoreJournal {
    var entry: JournalEntry?
    var saves = 0
    /// Where saves are noted beside the sound changes, to check the journal comes first.
    let sound: InMemorySoundSystem?

    init(noting sound: InMemorySoundSystem? = nil, entry: JournalEntry? = nil) {
        self.sound = sound
        self.entry = entry
    }

    func save(_ entry: JournalEntry) async throws {
        self.entry = entry
        saves += 1
        await sound?.note("journal saved")
    }

    func pending() async throws -> JournalEntry? { entry }
    func clear() async throws { entry = nil }
}

/// A clock that never waits: ramps run their steps at once.
struct ImmediateClock: Clock {
    typealias Duration = Swift.Duration
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }
    var now: Instant { Instant(offset: .zero) }
    var minimumResolution: Duration { .zero }
    func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
}

func percent(_ values: Double...) -> ChannelVolumes { ChannelVolumes(values.map(Volume.init(percent:))) }

func nullSink(volumes: ChannelVolumes, muted: Bool = false) -> SinkState {
    SinkState(index: 0, name: "speaker", description: "Speaker", state: .idle, muted: muted, volumes: volumes,
              channelNames: volumes.channels.indices.map { "ch\($0)" })
}

func musicStream(index: UInt32, volumes: ChannelVolumes, sinkIndex: UInt32 = 0) -> StreamState {
    StreamState(index: index, sinkIndex: sinkIndex, volumes: volumes, muted: false, applicationName: "radio",
                mediaRole: "music", isHerald: false)
}

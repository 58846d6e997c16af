import HeraldCore

/// `SoundSystem` on a live PulseAudio (or pipewire-pulse) server.
extension PulseConnection: SoundSystem {
    public func streams() async throws -> [StreamState] { try await sinkInputs() }

    public func setStreamVolume(index: UInt32, to volumes: ChannelVolumes) async throws {
        try await setSinkInputVolume(index: index, to: volumes)
    }

    public func setStreamMute(index: UInt32, to muted: Bool) async throws {
        try await setSinkInputMute(index: index, to: muted)
    }

    /// Asked once per connection (at connect): it was one more round trip in every safeguard open.
    public func serverInstance() async -> UInt32? {
        if let known = knownServerInstance.withLock({ $0 }) { return known }
        let instance = try? await serverInfo().instance
        if let instance { knownServerInstance.withLock { $0 = instance } }
        return instance
    }

    public func play(_ audio: AudioSource, onSink sink: String, mediaRole: String) async throws -> PlaybackReport {
        try await play(audio, onSink: sink, mediaRole: mediaRole, fadeMilliseconds: 150)
    }

    public func play(_ audio: AudioSource, onSinks sinks: [String], mediaRole: String) async -> [Result<PlaybackReport, any Error>] {
        await play(audio, onSinks: sinks, mediaRole: mediaRole, fadeMilliseconds: 150)
    }

    public func play(_ audio: AudioSource, onSinks sinks: [String], mediaRole: String, latencyOffsets: [String: Duration],
                     nearEnd: @escaping @Sendable (_ whole: Bool) -> Void) async -> [Result<PlaybackReport, any Error>] {
        await play(audio, onSinks: sinks, mediaRole: mediaRole, fadeMilliseconds: 150, latencyOffsets: latencyOffsets, nearEnd: nearEnd)
    }
}

/// What the daemon needs beyond the safeguard: `isConnected`, `keepWarm`, `setPlaybackPaused`.
extension PulseConnection: SoundConnection {}

/// One stream the safeguard will duck: from its own volume to `duckLevel` of it.
public struct DuckPlan: Sendable, Equatable, Codable {
    public var streamIndex: UInt32
    public var original: ChannelVolumes
    public var ducked: ChannelVolumes
    public var applicationName: String?

    public init(streamIndex: UInt32, original: ChannelVolumes, ducked: ChannelVolumes,
                applicationName: String?) {
        self.streamIndex = streamIndex
        self.original = original
        self.ducked = ducked
        self.applicationName = applicationName
    }
}

/// What the safeguard decided to do before speaking.
public enum SafeguardDecision: Sendable, Equatable {
    /// Do not play: the sink is muted and the mute policy is `respect`.
    case suppressMuted
    /// Play, after these changes (nil: leave as is).
    case proceed(unmute: Bool, raiseTo: ChannelVolumes?, ducks: [DuckPlan])
}

/// The pure decision rules of DESIGN.md "Safeguard rules" 2 to 5: no I/O, easy to test.
public enum SafeguardPolicy {
    /// Decides what to change on `sink` and its `streams` before an announcement.
    public static func decide(sink: SinkState, streams: [StreamState],
                              settings: SafeguardSettings) -> SafeguardDecision {
        if sink.muted && settings.mutePolicy == .respect { return .suppressMuted }
        return .proceed(unmute: sink.muted,
                        raiseTo: raisedVolumes(sink.volumes, settings: settings),
                        ducks: duckPlans(streams: streams, sinkIndex: sink.index, settings: settings))
    }

    /// The raised volumes, or nil when the loudest channel already reaches `min_volume`.
    ///
    /// Channels are scaled together so the loudest lands on the target and the balance is kept;
    /// no channel ever exceeds `max_volume`, and a louder sink is never lowered.
    public static func raisedVolumes(_ volumes: ChannelVolumes,
                                     settings: SafeguardSettings) -> ChannelVolumes? {
        let loudest = volumes.loudest
        guard loudest < settings.minVolume, !volumes.channels.isEmpty else { return nil }
        let target = min(settings.targetVolume, settings.maxVolume)
        guard target > loudest else { return nil }
        if loudest.raw == 0 {
            return ChannelVolumes(uniform: target, count: volumes.channels.count)
        }
        let factor = Double(target.raw) / Double(loudest.raw)
        var raised = volumes.scaled(by: factor)
        raised.channels = raised.channels.map { min($0, settings.maxVolume) }
        return raised
    }

    /// Duck plans for every other stream on the sink (never Herald's own).
    public static func duckPlans(streams: [StreamState], sinkIndex: UInt32,
                                 settings: SafeguardSettings) -> [DuckPlan] {
        streams.compactMap { duckPlan(for: $0, sinkIndex: sinkIndex, settings: settings) }
    }

    /// The duck plan for one stream, or nil when it is not to be ducked.
    public static func duckPlan(for stream: StreamState, sinkIndex: UInt32,
                                settings: SafeguardSettings) -> DuckPlan? {
        guard stream.sinkIndex == sinkIndex, !stream.isHerald, settings.duckLevel < 1 else { return nil }
        return DuckPlan(streamIndex: stream.index, original: stream.volumes,
                        ducked: stream.volumes.scaled(by: settings.duckLevel),
                        applicationName: stream.applicationName)
    }

    /// The volumes `step` of `steps` along a ramp from `from` to `to` (channel by channel).
    public static func ramp(from: ChannelVolumes, to: ChannelVolumes, step: Int, steps: Int) -> ChannelVolumes {
        guard steps > 0, step < steps, from.channels.count == to.channels.count else { return to }
        let t = Double(step) / Double(steps)
        return ChannelVolumes(zip(from.channels, to.channels).map { a, b in
            Volume(raw: UInt32((Double(a.raw) + (Double(b.raw) - Double(a.raw)) * t).rounded()))
        })
    }
}

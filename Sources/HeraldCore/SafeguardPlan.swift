/// One stream the safeguard quiets: from its own volume to `duck_level` of what the listener heard.
public struct DuckPlan: Sendable, Equatable, Codable {
    public var streamIndex: UInt32
    /// The stream's own volume before the announcement: what is put back.
    public var original: ChannelVolumes
    /// The volume that keeps the stream heard exactly as before once the sink is raised
    /// (`original` scaled by the old over the new sink volume); equal to `original` with no raise.
    public var held: ChannelVolumes
    /// The volume it ramps down to: `duck_level` of `held`.
    public var ducked: ChannelVolumes
    /// True when Herald muted the stream, because the listener heard nothing of it before (the
    /// sink was muted or silent): it is unmuted again after, its volume never touched.
    public var silenced: Bool
    public var applicationName: String?

    public init(streamIndex: UInt32, original: ChannelVolumes, held: ChannelVolumes, ducked: ChannelVolumes,
                silenced: Bool, applicationName: String?) {
        self.streamIndex = streamIndex
        self.original = original
        self.held = held
        self.ducked = ducked
        self.silenced = silenced
        self.applicationName = applicationName
    }

    private enum CodingKeys: String, CodingKey { case streamIndex, original, held, ducked, silenced, applicationName }

    /// Journals written before `held` and `silenced` existed decode with a plain duck.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        streamIndex = try container.decode(UInt32.self, forKey: .streamIndex)
        original = try container.decode(ChannelVolumes.self, forKey: .original)
        held = try container.decodeIfPresent(ChannelVolumes.self, forKey: .held) ?? original
        ducked = try container.decode(ChannelVolumes.self, forKey: .ducked)
        silenced = try container.decodeIfPresent(Bool.self, forKey: .silenced) ?? false
        applicationName = try container.decodeIfPresent(String.self, forKey: .applicationName)
    }
}

/// The pure level rules of DESIGN.md "Safeguard rules" 2 to 5: no I/O, no state.
public enum SafeguardPolicy {
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

    /// The plan for one stream, or nil when it is not Herald's to touch (Herald's own, another
    /// sink's) or nothing needs doing.
    ///
    /// What the listener hears of a stream is sink volume times stream volume (PulseAudio multiplies
    /// percentages). `sinkRatio` is the sink's loudest channel before over after the raise (1 with
    /// no raise); `silent` says the listener heard nothing of the sink before (muted or at 0%).
    /// Volumes round down, so the stream is never heard a raw unit louder than before.
    public static func duckPlan(for stream: StreamState, sinkIndex: UInt32, sinkRatio: Double, silent: Bool,
                                settings: SafeguardSettings) -> DuckPlan? {
        guard stream.sinkIndex == sinkIndex, !stream.isHerald else { return nil }
        if silent {
            // Already muted by its application: nothing was heard and nothing needs changing.
            guard !stream.muted else { return nil }
            return DuckPlan(streamIndex: stream.index, original: stream.volumes, held: stream.volumes,
                            ducked: stream.volumes, silenced: true, applicationName: stream.applicationName)
        }
        let held = stream.volumes.scaledDown(by: min(1, sinkRatio))
        let ducked = held.scaledDown(by: min(1, settings.duckLevel))
        guard ducked != stream.volumes else { return nil }
        return DuckPlan(streamIndex: stream.index, original: stream.volumes, held: held, ducked: ducked,
                        silenced: false, applicationName: stream.applicationName)
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

extension ChannelVolumes {
    /// Every channel multiplied by `factor` (at most 1), rounded down to the raw unit.
    func scaledDown(by factor: Double) -> ChannelVolumes {
        ChannelVolumes(channels.map { Volume(raw: UInt32((Double($0.raw) * factor).rounded(.down))) })
    }
}

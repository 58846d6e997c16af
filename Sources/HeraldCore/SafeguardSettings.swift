/// What to do about a muted sink.
public enum MutePolicy: String, Sendable, Codable, CaseIterable {
    /// Unmute for the announcement, then put the mute back.
    case override
    /// Leave the sink muted and do not play (outcome `suppressed_muted`).
    case respect
}

/// When to play the lead-in silence.
public enum LeadInPolicy: String, Sendable, Codable, CaseIterable {
    /// Only when the sink was not already running (suspended or idle): a waking sink or a
    /// Bluetooth speaker eats the first moment; a running one does not.
    case auto
    case always
    case never
}

/// The safeguard's thresholds, already validated (see `HeraldConfig`).
public struct SafeguardSettings: Sendable, Equatable {
    /// Configured sink name; nil means the server's default sink at the time of playing.
    public var sinkName: String?
    /// Raise only when the loudest channel is below this.
    public var minVolume: Volume
    /// The loudest channel after a raise.
    public var targetVolume: Volume
    /// No channel is ever raised above this.
    public var maxVolume: Volume
    /// Other streams go to this fraction of their own volume (0.3 = 30%).
    public var duckLevel: Double
    /// Duration of the duck and un-duck ramps.
    public var rampMilliseconds: Int
    /// Silence before the first sample, so a waking sink does not eat the start.
    public var leadInMilliseconds: Int
    public var leadIn: LeadInPolicy
    public var mutePolicy: MutePolicy

    public init(sinkName: String? = nil,
                minVolume: Volume = Volume(percent: 50),
                targetVolume: Volume = Volume(percent: 70),
                maxVolume: Volume = Volume(percent: 100),
                duckLevel: Double = 0.3,
                rampMilliseconds: Int = 150,
                leadInMilliseconds: Int = 150,
                leadIn: LeadInPolicy = .auto,
                mutePolicy: MutePolicy = .override) {
        self.sinkName = sinkName
        self.minVolume = minVolume
        self.targetVolume = targetVolume
        self.maxVolume = maxVolume
        self.duckLevel = duckLevel
        self.rampMilliseconds = rampMilliseconds
        self.leadInMilliseconds = leadInMilliseconds
        self.leadIn = leadIn
        self.mutePolicy = mutePolicy
    }

    /// The lead-in to play before the first sample, given the sink's state before the safeguard opened.
    public func leadIn(for state: SinkRunState) -> Int {
        switch leadIn {
        case .always: leadInMilliseconds
        case .never: 0
        case .auto: state == .running ? 0 : leadInMilliseconds
        }
    }

    /// The built-in defaults, as documented in `Config/herald.yaml`.
    public static let defaults = SafeguardSettings()
}

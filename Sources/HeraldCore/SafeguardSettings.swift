/// What to do about a muted sink.
public enum MutePolicy: String, Sendable, Codable, CaseIterable {
    /// Unmute for the announcement, then put the mute back.
    case override
    /// Leave the sink muted and do not play (outcome `suppressed_muted`).
    case respect
}

/// When to play the lead-in silence.
public enum LeadInPolicy: String, Sendable, Codable, CaseIterable {
    /// Only when the sink was suspended, sized by its device class (or its own override): a
    /// Bluetooth speaker or HDMI receiver waking up eats the first moment; an idle sink is awake.
    case auto
    /// Every time, sized the same way, for a device that sleeps without the server knowing.
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
    public var leadIn: LeadInPolicy
    /// The lead-in per device class, in milliseconds (`safeguard.lead_in_by_class`).
    public var leadInByClass: [SinkDeviceClass: Int]
    /// The lead-in for a sink by its name, in milliseconds, before its class's
    /// (`safeguard.lead_in_sinks`).
    public var leadInBySink: [String: Int]
    public var mutePolicy: MutePolicy

    public init(sinkName: String? = nil,
                minVolume: Volume = Volume(percent: 50),
                targetVolume: Volume = Volume(percent: 70),
                maxVolume: Volume = Volume(percent: 100),
                duckLevel: Double = 0.3,
                rampMilliseconds: Int = 150,
                leadIn: LeadInPolicy = .auto,
                leadInByClass: [SinkDeviceClass: Int] = SafeguardSettings.defaultLeadInByClass,
                leadInBySink: [String: Int] = [:],
                mutePolicy: MutePolicy = .override) {
        self.sinkName = sinkName
        self.minVolume = minVolume
        self.targetVolume = targetVolume
        self.maxVolume = maxVolume
        self.duckLevel = duckLevel
        self.rampMilliseconds = rampMilliseconds
        self.leadIn = leadIn
        self.leadInByClass = leadInByClass
        self.leadInBySink = leadInBySink
        self.mutePolicy = mutePolicy
    }

    /// The lead-in by device class, as `Config/herald.yaml` documents it: a null sink needs none;
    /// a board's analog output wakes in a few ms (50 covers the codec's pop suppression); USB
    /// cards take a moment to start streaming; an HDMI receiver mutes its input while it syncs
    /// (about half a second); a Bluetooth speaker sets up its link (generous: 700). A device of
    /// unknown kind gets the USB figure.
    public static let defaultLeadInByClass: [SinkDeviceClass: Int] = [
        .virtual: 0, .builtin: 50, .usb: 150, .hdmi: 500, .bluetooth: 700, .unknown: 150,
    ]

    /// The silence, in milliseconds, to play before the first sample on `sink`, given the sink as
    /// it was before the safeguard changed anything.
    ///
    /// `auto` plays it only when the sink was suspended (an idle or running sink is awake);
    /// `always` every time; `never` not at all. Its length is the sink's own override, else its
    /// device class's value.
    public func leadIn(for sink: SinkState) -> Int {
        switch leadIn {
        case .never: 0
        case .auto where sink.state != .suspended: 0
        case .auto, .always:
            leadInBySink[sink.name] ?? leadInByClass[sink.deviceClass] ?? leadInByClass[.unknown] ?? 0
        }
    }

    /// The built-in defaults, as documented in `Config/herald.yaml`.
    public static let defaults = SafeguardSettings()
}

/// What one priority does about a muted sink and how long it may wait (DESIGN.md "Priorities").
public struct PriorityPolicy: Sendable, Equatable {
    /// The priority's own mute policy; nil means `safeguard.mute` decides.
    public var mute: MutePolicy?
    /// How long an announcement of this priority may wait (for its turn, a sound server or a
    /// sink) before it is given up: dropped (low) or logged `failed` with the reason.
    public var maxAge: Duration

    public init(mute: MutePolicy? = nil, maxAge: Duration) {
        self.mute = mute
        self.maxAge = maxAge
    }
}

/// The policy of each priority, read from `priorities.<critical|high|normal|low>` in the config.
public struct PriorityPolicies: Sendable, Equatable {
    private var critical: PriorityPolicy
    private var high: PriorityPolicy
    private var normal: PriorityPolicy
    private var low: PriorityPolicy

    public init(critical: PriorityPolicy, high: PriorityPolicy, normal: PriorityPolicy, low: PriorityPolicy) {
        self.critical = critical
        self.high = high
        self.normal = normal
        self.low = low
    }

    /// The policy of `priority`.
    public subscript(priority: Priority) -> PriorityPolicy {
        get {
            switch priority {
            case .critical: critical
            case .high: high
            case .normal: normal
            case .low: low
            }
        }
        set {
            switch priority {
            case .critical: critical = newValue
            case .high: high = newValue
            case .normal: normal = newValue
            case .low: low = newValue
            }
        }
    }

    /// The mute policy that applies to `priority`.
    ///
    /// Critical always overrides a mute, whatever the config says: a leak alarm on a muted TV must
    /// be heard. The others use their own policy, else `fallback` (`safeguard.mute`).
    public func mutePolicy(for priority: Priority, fallback: MutePolicy) -> MutePolicy {
        priority == .critical ? .override : (self[priority].mute ?? fallback)
    }

    /// The built-in defaults, as documented in `Config/herald.yaml`: critical and normal wait up
    /// to 30 minutes (a reminder is still worth hearing after a short outage), high and low 5
    /// minutes (a payment announced later than that confuses more than it helps; a tip is stale).
    /// Low respects a mute; the others follow `safeguard.mute`.
    public static let defaults = PriorityPolicies(
        critical: PriorityPolicy(maxAge: .seconds(30 * 60)),
        high: PriorityPolicy(maxAge: .seconds(5 * 60)),
        normal: PriorityPolicy(maxAge: .seconds(30 * 60)),
        low: PriorityPolicy(mute: .respect, maxAge: .seconds(5 * 60)))
}

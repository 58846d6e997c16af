/// Placeholder until the `edges` branch lands (it owns this file).
public struct PriorityPolicy: Sendable, Equatable {
    public var mute: MutePolicy?
    public var maxAge: Duration
}

public struct PriorityPolicies: Sendable, Equatable {
    private var policies: [Priority: PriorityPolicy]

    public subscript(priority: Priority) -> PriorityPolicy {
        get { policies[priority]! }
        set { policies[priority] = newValue }
    }

    public func mutePolicy(for priority: Priority, fallback: MutePolicy) -> MutePolicy {
        priority == .critical ? .override : (self[priority].mute ?? fallback)
    }

    public static let defaults = PriorityPolicies(policies: [
        .critical: .init(mute: nil, maxAge: .seconds(1800)), .high: .init(mute: nil, maxAge: .seconds(300)),
        .normal: .init(mute: nil, maxAge: .seconds(1800)), .low: .init(mute: .respect, maxAge: .seconds(300)),
    ])
}

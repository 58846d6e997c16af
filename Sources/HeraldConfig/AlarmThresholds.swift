import Foundation

/// The thresholds of `fleet.alarms`.
public struct AlarmThresholds: Sendable, Equatable {
    public var offlineAfter: TimeInterval = 300
    public var unacknowledgedAfter: TimeInterval = 900
    public var lowDiskBytes: Int64 = 200_000_000

    public init(offlineAfter: TimeInterval = 300, unacknowledgedAfter: TimeInterval = 900, lowDiskBytes: Int64 = 200_000_000) {
        self.offlineAfter = offlineAfter
        self.unacknowledgedAfter = unacknowledgedAfter
        self.lowDiskBytes = lowDiskBytes
    }
}

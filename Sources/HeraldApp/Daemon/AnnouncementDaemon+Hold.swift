import Foundation
import HeraldCore

/// What a button asks of the queue: quiet for a while, and what was said last.
extension AnnouncementDaemon {
    /// The config's quiet hours with a button's hold (`holdQuiet`), as every decision reads them.
    var quietHours: QuietHours {
        var quiet = context.configuration.quietHours
        quiet.heldUntil = quietHeldUntil
        return quiet
    }

    /// Holds everything but critical announcements in every room for `duration` from now (a
    /// button's `quiet`): they wait, and are said when it ends (texts for the same rooms as one
    /// summary, as after quiet hours). A second press starts the time again. Returns its end.
    @discardableResult
    public func holdQuiet(for duration: Duration) -> Date {
        let end = now().addingTimeInterval(duration.inSeconds)
        quietHeldUntil = end
        logger.notice("quiet until \(end.formatted(.iso8601)): only critical announcements are said until then")
        scheduleDeferredRelease()
        changes.signal()
        return end
    }

    /// Until when a button's quiet holds, nil when it does not (or it has ended).
    public var quietUntil: Date? { quietHeldUntil.flatMap { $0 > now() ? $0 : nil } }

    /// The id of the last payment (or summary of payments) said by this process.
    public var lastPayment: String? { lastPaymentID }
}

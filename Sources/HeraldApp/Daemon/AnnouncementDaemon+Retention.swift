import Foundation

extension AnnouncementDaemon {
    /// Deletes log rows past `history.retention_days` (0 keeps them all); run at start and daily
    /// by `herald serve`, so a box left alone for years does not fill its disk with history.
    public func pruneHistory(now: Date? = nil) async {
        let now = now ?? self.now()
        let days = context.configuration.history.retentionDays
        guard days > 0 else { return }
        do {
            let removed = try await context.store.prune(finishedBefore: now.addingTimeInterval(-Double(days) * 86_400))
            if removed > 0 { logger.notice("pruned \(removed) announcement(s) older than \(days) days (history.retention_days)") }
        } catch {
            logger.warning("could not prune the announcement log: \(error)")
        }
    }
}

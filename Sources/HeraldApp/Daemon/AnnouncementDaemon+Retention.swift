import Foundation

extension AnnouncementDaemon {
    /// Deletes log rows past `history.retention_days` (0 keeps them all), and the audio kept past
    /// `history.audio_retention` or `history.audio_max_bytes`; run at start and daily
    /// by `herald serve`, so a box left alone for years does not fill its disk with history.
    public func pruneHistory(now: Date? = nil) async {
        let now = now ?? self.now()
        // The audio kept for listening back has a retention of its own (days, not a year).
        await KeptAudio(context: context).prune(now: now)
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

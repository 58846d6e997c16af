import Foundation
import HeraldCore

extension AnnouncementStore {
    /// The log summed over a window (`AnnouncementStats`); the file's rows when it can be read,
    /// else the rows kept in memory while it cannot.
    public func stats(since: Date, until: Date) async throws -> AnnouncementStats {
        if let stats = try await fileRead({ try await $0.stats(since: since, until: until) }) { return stats }
        return try await memory.stats(since: since, until: until)
    }

    /// The payments received in `[since, until)` (`PaymentTotals`), read as `stats` reads.
    public func paymentTotals(since: Date, until: Date) async throws -> PaymentTotals {
        if let totals = try await fileRead({ try await $0.paymentTotals(since: since, until: until) }) { return totals }
        return try await memory.paymentTotals(since: since, until: until)
    }

    /// Deletes the rows finished before `before` from the file; returns how many went. Rows
    /// waiting in memory are recent by nature: they are written first and pruned another day.
    public func prune(finishedBefore before: Date) async throws -> Int {
        var removed = 0
        _ = await onFile("prune the announcement log") { removed = try await $0.prune(finishedBefore: before) }
        return removed
    }
}

import Foundation
import HeraldCore
import HeraldStore
import Testing

/// `herald stats` and `herald history --prune` on a real SQLite file.
@Suite struct StatsTests {
    let folder = NSTemporaryDirectory() + "herald-stats-\(UUID().uuidString)"

    func row(_ outcome: Outcome?, _ priority: Priority = .normal, _ source: AnnouncementSource = .api, at seconds: Double,
             onset: Int? = nil, clip: ClipSource? = nil) -> AnnouncementRecord {
        var record = AnnouncementRecord(source: source, priority: priority, bodyKind: .text, body: "hello",
                                        queuedAt: Date(timeIntervalSince1970: seconds))
        record.outcome = outcome
        record.onsetLatencyMilliseconds = onset
        record.clipSource = clip
        if outcome != nil { record.finishedAt = Date(timeIntervalSince1970: seconds + 2) }
        return record
    }

    @Test func countsOnsetsAndCacheUseInsideTheWindowOnly() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try AppDatabase(path: folder + "/herald.sqlite")
        // Ten heard, onsets 10...100 ms; half from the cache.
        for index in 1...10 {
            try await database.record(row(.played, index <= 2 ? .high : .normal, index <= 3 ? .push : .api, at: 1000 + Double(index),
                                          onset: index * 10, clip: index % 2 == 0 ? .cache : .synth))
        }
        try await database.record(row(.suppressedMuted, .low, at: 1020))
        try await database.record(row(nil, .normal, at: 1030))
        try await database.record(row(.played, at: 500, onset: 5000, clip: .cache))  // before the window
        try await database.record(row(.played, at: 3000, onset: 5000, clip: .cache))  // at its end: excluded
        let stats = try await database.stats(since: Date(timeIntervalSince1970: 1000), until: Date(timeIntervalSince1970: 3000))
        #expect(stats.total == 12)
        #expect(stats.byOutcome == ["played": 10, "suppressed_muted": 1, "pending": 1])
        #expect(stats.byPriority == ["high": 2, "normal": 9, "low": 1])
        #expect(stats.bySource == ["push": 3, "api": 9])
        #expect(stats.onset == AnnouncementStats.Percentiles([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]))
        #expect(stats.onset?.p50 == 50 && stats.onset?.p90 == 90 && stats.onset?.p99 == 100 && stats.onset?.max == 100)
        #expect(stats.cacheHits == 5 && stats.cacheMisses == 5 && stats.cacheHitRate == 0.5)
    }

    @Test func anEmptyWindowHasNoPercentilesAndNoHitRate() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try AppDatabase(path: folder + "/herald.sqlite")
        let stats = try await database.stats(since: Date(timeIntervalSince1970: 0), until: Date())
        #expect(stats.total == 0 && stats.onset == nil && stats.cacheHitRate == nil)
    }

    @Test func nearestRankNeverInventsAValue() {
        let one = AnnouncementStats.Percentiles([7])
        #expect(one?.p50 == 7 && one?.p99 == 7 && one?.count == 1)
        let two = AnnouncementStats.Percentiles([10, 1000])
        #expect(two?.p50 == 10 && two?.p90 == 1000)
        #expect(AnnouncementStats.Percentiles([]) == nil)
    }

    @Test func pruningKeepsRecentAndUnfinishedRows() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try AppDatabase(path: folder + "/herald.sqlite")
        try await database.record(row(.played, at: 100))
        try await database.record(row(.failed, at: 200))
        try await database.record(row(nil, at: 150))   // queued long ago, never finished: the daemon says it next start
        try await database.record(row(.played, at: 5000))
        #expect(try await database.prune(finishedBefore: Date(timeIntervalSince1970: 1000)) == 2)
        let left = try await database.recent(limit: 10)
        #expect(left.map(\.queuedAt.timeIntervalSince1970).sorted() == [150, 5000])
        #expect(try await database.prune(finishedBefore: Date(timeIntervalSince1970: 1000)) == 0)
    }
}

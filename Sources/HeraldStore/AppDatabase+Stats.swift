import Foundation
import GRDB
import HeraldCore

/// The log summed over a window, for `herald stats`: what happened, how fast it was heard, how
/// often the clip cache spared the synthesizer.
public struct AnnouncementStats: Encodable, Sendable, Equatable {
    public var since: Date
    public var until: Date
    public var total: Int
    /// Counts by outcome (`pending` for rows still queued), priority and source.
    public var byOutcome: [String: Int]
    public var byPriority: [String: Int]
    public var bySource: [String: Int]
    /// Request-to-onset percentiles of the rows that were heard; nil when none was.
    public var onset: Percentiles?
    /// Rows said from the clip cache, and rows synthesized (each a lookup that missed).
    public var cacheHits: Int
    public var cacheMisses: Int

    /// Hits over lookups in the window; nil when no sentence was looked up.
    public var cacheHitRate: Double? {
        cacheHits + cacheMisses == 0 ? nil : Double(cacheHits) / Double(cacheHits + cacheMisses)
    }

    /// Nearest-rank percentiles in milliseconds (`p50` is a value that was measured, never an
    /// interpolation between two).
    public struct Percentiles: Codable, Sendable, Equatable {
        public var count: Int
        public var p50: Int
        public var p90: Int
        public var p99: Int
        public var max: Int

        /// nil for no values.
        public init?(_ values: [Int]) {
            let sorted = values.sorted()
            guard let last = sorted.last else { return nil }
            func rank(_ p: Double) -> Int { sorted[Swift.max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1)] }
            count = sorted.count
            p50 = rank(0.50)
            p90 = rank(0.90)
            p99 = rank(0.99)
            max = last
        }
    }

    enum CodingKeys: String, CodingKey {
        case since, until, total, onset
        case byOutcome = "by_outcome", byPriority = "by_priority", bySource = "by_source"
        case cacheHits = "cache_hits", cacheMisses = "cache_misses", cacheHitRate = "cache_hit_rate"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(since, forKey: .since)
        try container.encode(until, forKey: .until)
        try container.encode(total, forKey: .total)
        try container.encode(byOutcome, forKey: .byOutcome)
        try container.encode(byPriority, forKey: .byPriority)
        try container.encode(bySource, forKey: .bySource)
        try container.encodeIfPresent(onset, forKey: .onset)
        try container.encode(cacheHits, forKey: .cacheHits)
        try container.encode(cacheMisses, forKey: .cacheMisses)
        try container.encodeIfPresent(cacheHitRate, forKey: .cacheHitRate)
    }
}

extension AppDatabase {
    /// The rows queued from `since` (inclusive) to `until` (exclusive), summed in SQL.
    public func stats(since: Date, until: Date) async throws -> AnnouncementStats {
        try await writer.read { db in
            let window = "queued_at >= ? AND queued_at < ?"
            let arguments: StatementArguments = [since, until]
            func counts(_ column: String) throws -> [String: Int] {
                var result: [String: Int] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT COALESCE(\(column), 'pending'), COUNT(*) FROM announcement WHERE \(window) GROUP BY 1",
                                            arguments: arguments) {
                    result[row[0]] = row[1]
                }
                return result
            }
            let onsets = try Int.fetchAll(db, sql: "SELECT onset_latency_milliseconds FROM announcement WHERE \(window) AND onset_latency_milliseconds IS NOT NULL",
                                          arguments: arguments)
            let sources = try counts("clip_source")
            let byOutcome = try counts("outcome")
            return AnnouncementStats(since: since, until: until, total: byOutcome.values.reduce(0, +), byOutcome: byOutcome,
                                     byPriority: try counts("priority"), bySource: try counts("source"),
                                     onset: AnnouncementStats.Percentiles(onsets),
                                     cacheHits: sources[ClipSource.cache.rawValue] ?? 0,
                                     cacheMisses: (sources[ClipSource.synth.rawValue] ?? 0) + (sources[ClipSource.piper.rawValue] ?? 0))
        }
    }

    /// Deletes the rows that finished before `before` (rows still queued are kept, whatever their
    /// age); returns how many went. Request ids go with their rows.
    public func prune(finishedBefore before: Date) async throws -> Int {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM announcement WHERE outcome IS NOT NULL AND COALESCE(finished_at, queued_at) < ?",
                           arguments: [before])
            return db.changesCount
        }
    }
}

extension AppDatabase {
    /// Writes one small row (when `herald doctor` last ran) to prove the file can be written now.
    public func checkWritable(now: Date) async throws {
        try await writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO counter(name, value) VALUES ('doctor_last_run', ?)",
                           arguments: [Int(now.timeIntervalSince1970)])
        }
    }
}

import ArgumentParser
import Foundation
import HeraldCore
import HeraldStore

extension Herald {
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            abstract: "Count the log over a window: outcomes, priorities, sources, onset percentiles, cache hit rate.")

        @OptionGroup var options: GlobalOptions

        @Option(help: ArgumentHelp("The window: a duration back from now (24h, 7d, 90m) or an ISO 8601 time (2026-11-22T08:00:00Z).",
                                   valueName: "WHEN"))
        var since = "24h"

        @Flag(help: "Print the figures as JSON.")
        var json = false

        func validate() throws { _ = try start(now: Date()) }

        /// The start of the window, or a message naming `--since` and what it takes.
        func start(now: Date) throws -> Date {
            if let duration = DurationText.parse(since, plainUnit: .hours), duration > .zero {
                return now.addingTimeInterval(-duration.inSeconds)
            }
            if let date = ISO8601DateFormatter().date(from: since) { return date }
            throw ValidationError("--since: '\(since)' is neither a duration (24h, 7d, 90m) nor an ISO 8601 time like 2026-11-22T08:00:00Z")
        }

        func run() async throws {
            let now = Date()
            let context = try await options.makeContext()
            let stats: AnnouncementStats
            do { stats = try await context.store.stats(since: try start(now: now), until: now) } catch { throw fail(error) }
            if json {
                print(try jsonString(stats))
                return
            }
            let time = ISO8601DateFormatter()
            print("\(stats.total) announcement(s) from \(time.string(from: stats.since)) to \(time.string(from: stats.until))")
            guard stats.total > 0 else { return }
            print("  outcome:  \(Self.line(stats.byOutcome))")
            print("  priority: \(Self.line(stats.byPriority))")
            print("  source:   \(Self.line(stats.bySource))")
            if let onset = stats.onset {
                print("  onset:    p50 \(onset.p50) ms, p90 \(onset.p90) ms, p99 \(onset.p99) ms, max \(onset.max) ms (\(onset.count) heard)")
            } else {
                print("  onset:    none heard")
            }
            if let rate = stats.cacheHitRate {
                print("  cache:    \(Int((rate * 100).rounded()))% of sentences from the cache (\(stats.cacheHits) hit(s), \(stats.cacheMisses) synthesized)")
            } else {
                print("  cache:    no sentence looked up")
            }
        }

        /// `played 12, failed 1`: the largest first, then by name.
        static func line(_ counts: [String: Int]) -> String {
            counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
    }
}

import ArgumentParser
import Foundation
import HeraldApp
import HeraldCore

extension Herald {
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "Show the newest announcements from the log.",
            discussion: "--prune deletes the rows finished more than history.retention_days ago, and the audio kept past history.audio_retention or history.audio_max_bytes (the daemon also does it daily).")

        @OptionGroup var options: GlobalOptions

        @Option(help: "How many rows to show.")
        var limit = 20

        @Flag(help: "Print the rows as JSON.")
        var json = false

        @Flag(help: "Delete the rows finished more than history.retention_days ago, and say how many went.")
        var prune = false

        func validate() throws {
            guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be from 1 to 10000, not \(limit)") }
        }

        func run() async throws {
            let context = try await options.makeContext()
            if prune {
                let days = context.configuration.history.retentionDays
                guard days > 0 else {
                    throw fail("history.retention_days is 0 (keep every row) in \(context.configuration.file ?? "the built-in defaults"); set it to a number of days to prune")
                }
                let before = Date().addingTimeInterval(-Double(days) * 86_400)
                let removed: Int
                do { removed = try await context.store.prune(finishedBefore: before) } catch { throw fail(error) }
                // The audio kept for listening back goes by its own retention (history.audio_retention).
                await KeptAudio(context: context).prune(now: Date())
                print("pruned \(removed) announcement(s) finished before \(ISO8601DateFormatter().string(from: before)) (history.retention_days: \(days))")
                return
            }
            let rows: [AnnouncementRecord]
            do { rows = try await context.store.recent(limit: limit) } catch { throw fail(error) }
            if json {
                print(try jsonString(rows))
                return
            }
            if rows.isEmpty { print("no announcements logged yet") }
            let time = DateFormatter()
            time.dateFormat = "yyyy-MM-dd HH:mm:ss"
            for row in rows {
                var line = "\(time.string(from: row.queuedAt))  \(row.outcome?.rawValue ?? "pending")  \(row.source.rawValue)/\(row.priority.rawValue)  \(row.body)"
                if let sink = row.sink { line += "  sink=\(sink)" }
                if let source = row.clipSource { line += "  from=\(source.rawValue)" }
                if let before = row.volumeBefore, let played = row.volumePlayed {
                    line += before == played ? "  volume \(before)" : "  volume \(before)->\(played)"
                    if row.mutedBefore == true { line += " (was muted)" }
                }
                if row.streamsDucked > 0 { line += "  ducked=\(row.streamsDucked)" }
                if let onset = row.onsetLatencyMilliseconds { line += "  onset=\(onset)ms" }
                if let reminder = row.reminderID { line += "  reminder=\(reminder)" }
                for room in row.rooms ?? [] {
                    line += "  [\(room.room) \(room.outcome.rawValue)\(room.volumePercent.map { " \($0)%" } ?? "")"
                        + (room.noiseGainDB.map { gain in " noise \(room.noiseFloorDBFS.map { "\($0) dBFS" } ?? "unheard") +\(gain) dB" } ?? "") + "]"
                }
                if let error = row.error { line += "  error: \(error)" }
                print(line)
            }
        }
    }
}

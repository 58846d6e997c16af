import ArgumentParser
import Foundation
import HeraldApp
import HeraldCore

extension Herald {
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the newest announcements from the log.")

        @OptionGroup var options: GlobalOptions

        @Option(help: "How many rows to show.")
        var limit = 20

        @Flag(help: "Print the rows as JSON.")
        var json = false

        func validate() throws {
            guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be from 1 to 10000, not \(limit)") }
        }

        func run() async throws {
            let context = try await options.makeContext()
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
                if let error = row.error { line += "  error: \(error)" }
                print(line)
            }
        }
    }
}

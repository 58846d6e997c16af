import ArgumentParser
import AsyncHTTPClient
import Foundation

extension Herald {
    /// `herald calendar list`: the calendars the running `herald serve` reads (`calendars:`),
    /// through its API, as `herald remind list` shows its reminders.
    struct CalendarCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "calendar", abstract: "Show the calendars the running herald serve reads.", subcommands: [List.self])
    }
}

extension Herald.CalendarCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Each calendar, its last successful read, and what it will say next and when.")

        @OptionGroup var options: GlobalOptions

        @Flag(help: "Print the calendars as JSON.")
        var json = false

        func run() async throws {
            let reply = try await daemonCall(options, .GET, "/v1/calendars")
            if json { print(String(decoding: reply, as: UTF8.self)); return }
            let calendars = ((try? JSONSerialization.jsonObject(with: reply) as? [String: Any])?["calendars"] as? [[String: Any]]) ?? []
            if calendars.isEmpty { print("no calendars; add one under calendars: in the config (docs/reminders.md)") }
            for calendar in calendars {
                let read = (calendar["last_read"] as? String).map { "read \(localTime($0))" } ?? "never read"
                print("\(calendar["name"] as? String ?? "?")  \(calendar["source"] as? String ?? "")  \(read)  "
                      + "\(calendar["events_this_week"] as? Int ?? 0) event(s) in the next 7 days")
                if let problem = calendar["problem"] as? String { print("  PROBLEM: \(problem)") }
                for skipped in calendar["skipped"] as? [String] ?? [] { print("  not said: \(skipped)") }
                let next = calendar["next"] as? [[String: Any]] ?? []
                if next.isEmpty { print("  nothing to say in the next 8 days") }
                for firing in next {
                    print("  \(localTime(firing["at"] as? String))  \(firing["says"] as? String ?? "")")
                }
            }
        }
    }
}

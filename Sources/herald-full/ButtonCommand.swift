import ArgumentParser
import Foundation
import HeraldCore

extension Herald {
    /// `herald pay total`: the day's payments from the log, per currency (read from the database,
    /// with or without a running daemon). Reached as `herald pay total` (`main` rewrites it: `pay`
    /// takes any word as its amount).
    struct PayTotal: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pay-total", abstract: "Show today's payments: how many, and their total per currency.",
            usage: "herald pay total [--since <time>] [--json]", shouldDisplay: false)

        @OptionGroup var options: GlobalOptions

        @Option(help: "Count from this ISO 8601 time (default: midnight today, in quiet_hours.time_zone or the system's zone).")
        var since: String?

        @Flag(help: "Print the totals as JSON.")
        var json = false

        func run() async throws {
            let context = try await options.makeContext()
            let now = Date()
            let start: Date
            if let since {
                guard let date = ISO8601DateFormatter().date(from: since) else {
                    throw ValidationError("--since '\(since)' is not an ISO 8601 time like 2026-11-22T00:00:00Z")
                }
                start = date
            } else {
                start = PaymentTotals.startOfDay(now, in: context.configuration.quietHours.timeZone)
            }
            let totals: PaymentTotals
            do { totals = try await context.store.paymentTotals(since: start, until: now) } catch { throw fail(error) }
            if json { print(try jsonString(totals)); return }
            let from = since == nil ? "today" : "since \(localTime(since))"
            if totals.totals.isEmpty { print("no payments \(from)") }
            for total in totals.totals { print("\(total.count) payment(s) \(from): \(total.amount) \(total.currency)") }
        }
    }

    /// `herald button`: the buttons of the config and their last presses, and a press from the shell.
    struct ButtonCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "button", abstract: "Show the buttons and their last presses, or press one.", subcommands: [List.self, Press.self])
    }
}

extension Herald.ButtonCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Each button, what its events do, and the last presses.")

        @OptionGroup var options: GlobalOptions

        @Flag(help: "Print them as JSON.")
        var json = false

        func run() async throws {
            let reply = try await daemonCall(options, .GET, "/v1/buttons?limit=20")
            if json { print(String(decoding: reply, as: UTF8.self)); return }
            let object = (try? JSONSerialization.jsonObject(with: reply)) as? [String: Any] ?? [:]
            let buttons = object["buttons"] as? [[String: Any]] ?? []
            if buttons.isEmpty { print("no buttons; add one under buttons: in the config (docs/buttons.md)") }
            for button in buttons {
                let actions = (button["actions"] as? [String: String] ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
                let from = (button["mqtt"] as? String).map { "MQTT \($0)" } ?? "HTTP only"
                print("\(button["name"] as? String ?? "?")  \(from)  \(actions.joined(separator: ", "))")
            }
            let presses = object["presses"] as? [[String: Any]] ?? []
            if !presses.isEmpty { print("\nlast presses:") }
            for press in presses {
                print("  \(localTime(press["at"] as? String))  \(press["button"] as? String ?? "?")/\(press["event"] as? String ?? "?")  "
                      + "\(press["result"] as? String ?? "")  \(press["detail"] as? String ?? "")")
            }
        }
    }

    struct Press: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "press", abstract: "Press a button as if its event came in (to try one).")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The button's name in buttons:.")
        var name: String

        @Argument(help: "The event: single, double, hold, or whatever its actions name.")
        var event: String

        func run() async throws {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_."))
            guard let button = name.addingPercentEncoding(withAllowedCharacters: allowed),
                  let pressed = event.addingPercentEncoding(withAllowedCharacters: allowed) else {
                throw ValidationError("the name and the event must be text")
            }
            let reply = try await daemonCall(options, .POST, "/v1/buttons/\(button)/\(pressed)")
            let object = (try? JSONSerialization.jsonObject(with: reply)) as? [String: Any] ?? [:]
            print("\(object["result"] as? String ?? "?"): \(object["detail"] as? String ?? "")")
        }
    }
}

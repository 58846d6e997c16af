import ArgumentParser
import AsyncHTTPClient
import Foundation
import HeraldConfig
import HeraldCore

extension Herald {
    /// `herald remind add|list|rm|ack`: the daemon's reminders, through its API (reminders are
    /// said by `herald serve`, so they live where it can see them).
    struct Remind: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remind",
            abstract: "Add, list, remove and acknowledge reminders of the running herald serve.",
            subcommands: [Add.self, List.self, Remove.self, Ack.self, Report.self])
    }
}

extension Herald.Remind {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a reminder.",
            discussion: """
                herald remind add "Time to take your blood pressure medication" --at 08:00 --days mon-fri
                herald remind add "Dentist at ten" --at 2026-11-23T09:00 --time-zone Europe/Berlin
                herald remind add "Drink some water" --every 1h --from 09:00 --until 17:00 --repeat-every 5m --repeat-times 3
                """)

        @OptionGroup var options: GlobalOptions

        @Argument(help: "What to say.")
        var text: String

        @Option(help: "A time of day (08:00, or 08:00,20:00: daily) or a local date and time (2026-11-23T08:00: once).")
        var at: String?

        @Option(help: "Weekdays for --at times or --every: mon-fri, sat,sun (default: every day).")
        var days: String?

        @Option(help: "Every so long (30m, 2h) between --from and --until each day.")
        var every: String?

        @Option(help: "With --every: the first time of day.")
        var from: String?

        @Option(help: "With --every: the last time of day.")
        var until: String?

        @Option(help: "An IANA time zone (default: the system's).")
        var timeZone: String?

        @Option(help: "critical, high, normal (default) or low.")
        var priority: String?

        @Option(help: "Say it again after this long until acknowledged (5m).")
        var repeatEvery: String?

        @Option(help: "At most this many more times (default 3).")
        var repeatTimes: Int?

        @Option(help: "A webhook URL told when nobody acknowledged it or it was missed.")
        var escalate: String?

        @Option(help: "Language tag: en, zh, es, de...")
        var lang: String?

        @Option(help: "An engine voice or an alias from speech.voices.")
        var voice: String?

        @Option(name: .customLong("room"), help: ArgumentHelp("A room or group to say it in (repeat for more).", valueName: "NAME"))
        var rooms: [String] = []

        @Flag(help: "Print the reminder as JSON.")
        var json = false

        /// The draft's field names as this command's options.
        static let flags = ["schedule.at": "--at", "schedule.daily": "--at", "schedule.days": "--days", "schedule.every": "--every",
                            "schedule.from": "--from", "schedule.until": "--until", "schedule": "--at or --every",
                            "repeat.every": "--repeat-every", "repeat.times": "--repeat-times", "time_zone": "--time-zone",
                            "escalate": "--escalate", "priority": "--priority", "text": "TEXT", "lang": "--lang", "voice": "--voice",
                            "rooms": "--room"]

        /// The reminder's timing as typed, once: checked here first (`validate`) and sent (`run`).
        var draft: ReminderDraft {
            var draft = ReminderDraft()
            draft.priority = priority
            draft.timeZone = timeZone
            var parts = ReminderDraft.Schedule()
            if let at { if at.contains("T") { parts.at = at } else { parts.daily = at.split(separator: ",").map(String.init) } }
            parts.every = every
            parts.from = from
            parts.until = until
            parts.days = days.map { [$0] }
            draft.schedule = parts
            draft.hasRepeat = repeatEvery != nil || repeatTimes != nil
            draft.repeatEvery = repeatEvery
            draft.repeatTimes = repeatTimes
            draft.escalate = escalate
            return draft
        }

        /// `POST /v1/reminders`'s body (docs/reminders.md); absent options are left out.
        struct Body: Encodable {
            struct Repeat: Encodable { var every: String?; var times: Int? }
            var text: String
            var schedule: ReminderDraft.Schedule?
            var timeZone: String?
            var priority: String?
            var lang: String?
            var voice: String?
            var escalate: String?
            var `repeat`: Repeat?
            var rooms: [String]?
        }

        func validate() throws {
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw ValidationError("TEXT is empty: say what to remind") }
            // The same checks as the daemon's, here first so a mistake is named by its option.
            do { _ = try draft.check(now: Date()) } catch {
                throw ValidationError("\(Self.flags[error.field] ?? error.field): \(error.message)")
            }
        }

        func run() async throws {
            let draft = draft
            let body = Body(text: text, schedule: draft.schedule, timeZone: timeZone, priority: priority, lang: lang, voice: voice,
                            escalate: escalate,
                            repeat: draft.hasRepeat ? Body.Repeat(every: repeatEvery, times: repeatTimes) : nil,
                            rooms: rooms.isEmpty ? nil : rooms)
            let reply = try await daemonCall(options, .POST, "/v1/reminders", body: Array(try JSONEncoder.api.encode(body)), flags: Self.flags)
            if json { print(String(decoding: reply, as: UTF8.self)); return }
            let object = (try? JSONSerialization.jsonObject(with: reply) as? [String: Any]) ?? [:]
            print("added \(object["id"] as? String ?? "?"), next due \(localTime(object["next_due"] as? String))")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the reminders, their next due time and whether one waits for an acknowledgement.")

        @OptionGroup var options: GlobalOptions

        @Flag(help: "Print the reminders as JSON.")
        var json = false

        func run() async throws {
            let reply = try await daemonCall(options, .GET, "/v1/reminders")
            if json { print(String(decoding: reply, as: UTF8.self)); return }
            let rows = (try? JSONSerialization.jsonObject(with: reply) as? [[String: Any]]) ?? []
            if rows.isEmpty { print("no reminders; add one with herald remind add") }
            for row in rows {
                let schedule = (row["schedule"] as? [String: Any]).map(describe) ?? ""
                var line = "\(row["id"] as? String ?? "?")  next \(localTime(row["next_due"] as? String))  \(schedule)"
                line += "  \(row["priority"] as? String ?? "")  \(row["body"] as? String ?? "")"
                if row["origin"] as? String == "config" { line += "  (config file)" }
                if row["origin"] as? String == "calendar" { line += "  (calendar)" }
                if let waiting = row["waiting_since"] as? String {
                    line += "  WAITING for an acknowledgement since \(localTime(waiting)) (said \(row["said_times"] as? Int ?? 1)x)"
                }
                print(line)
            }
        }

        func describe(_ schedule: [String: Any]) -> String {
            let days = (schedule["days"] as? [String]).map { " on " + $0.joined(separator: ",") } ?? ""
            if let at = schedule["at"] as? String { return "once at \(at)" }
            if let daily = schedule["daily"] as? [String] { return "daily at \(daily.joined(separator: ","))\(days)" }
            return "every \(schedule["every"] ?? "") from \(schedule["from"] ?? "") until \(schedule["until"] ?? "")\(days)"
        }
    }

    /// The caregiver's report: per reminder and calendar, said on time, late, missed,
    /// acknowledged and by whom, and the median time to an acknowledgement.
    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "report", abstract: "How the reminders of the last days went: on time, late, missed, acknowledged.")

        @OptionGroup var options: GlobalOptions

        @Flag(help: "The last 7 days (the default).")
        var week = false

        @Option(help: "The last N days (1 to 366).")
        var days: Int?

        @Flag(help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let reply = try await daemonCall(options, .GET, "/v1/reminders/report?days=\(days ?? 7)")
            if json { print(String(decoding: reply, as: UTF8.self)); return }
            let lines = ((try? JSONSerialization.jsonObject(with: reply) as? [String: Any])?["lines"] as? [[String: Any]]) ?? []
            print("the last \(days ?? 7) day(s)")
            if lines.isEmpty { print("no reminder came due") }
            for line in lines {
                func count(_ key: String) -> Int { line[key] as? Int ?? 0 }
                var text = "\(line["name"] as? String ?? "?")  \(line["text"] as? String ?? "")\n  \(count("firings")) due: "
                    + "\(count("on_time")) on time, \(count("late")) late, \(count("missed")) missed"
                if count("not_said") > 0 { text += ", \(count("not_said")) not said" }
                text += "; \(count("acknowledged")) acknowledged"
                let by = (line["acknowledged_by"] as? [String: Int] ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                if !by.isEmpty { text += " (\(by.joined(separator: ", ")))" }
                if let median = line["median_seconds_to_acknowledge"] as? Double {
                    text += ", median \(DurationText.format(.seconds(median.rounded()))) to answer"
                }
                print(text)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a reminder made through the API or CLI.")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The reminder's id (herald remind list).")
        var id: String

        func run() async throws {
            _ = try await daemonCall(options, .DELETE, "/v1/reminders/\(escaped(id))")
            print("removed \(id)")
        }
    }

    struct Ack: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ack", abstract: "Acknowledge a reminder: its repeats stop.")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The reminder's id (herald remind list).")
        var id: String

        @Option(help: "Who answered (default: this command-line client).")
        var by: String?

        func run() async throws {
            _ = try await daemonCall(options, .POST, "/v1/reminders/\(escaped(id))/ack", body: Array(try JSONEncoder().encode(["by": by ?? "cli"])))
            print("acknowledged \(id)")
        }
    }
}

private func escaped(_ id: String) -> String {
    id.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_.:"))) ?? id
}

/// An ISO 8601 time from the API in the local zone, for people.
func localTime(_ text: String?) -> String {
    guard let text, let date = ISO8601DateFormatter().date(from: text) else { return "never" }
    let format = DateFormatter()
    format.dateFormat = "yyyy-MM-dd HH:mm:ss zzz"
    return format.string(from: date)
}

/// Calls the daemon; its refusal becomes one line naming the option (or field) and what to do.
/// (A reminder's id goes percent-encoded in the path; the daemon decodes it and names it as typed.)
func daemonCall(_ options: GlobalOptions, _ method: DaemonClient.Verb, _ path: String, body: [UInt8]? = nil,
                        flags: [String: String] = [:]) async throws -> Data {
    let context = try await options.makeContext()
    let client = DaemonClient(settings: context.configuration.api)
    guard let (status, reply) = try await client.call(method, path, json: body) else {
        throw fail("no herald serve answers at \(context.configuration.api.baseURL); reminders are kept and said by the daemon: start it (herald serve) and try again")
    }
    guard (200..<300).contains(status) else {
        let error = DaemonClient.refusal(in: reply)
        let field = error?.field.map { flags[$0] ?? $0 }
        let message = error?.message ?? "the daemon answered HTTP \(status)"
        // The daemon's answer, not a mistake in how the command was typed: no usage text after it.
        throw fail("\(field.map { "\($0): " } ?? "")\(message)")
    }
    return reply
}

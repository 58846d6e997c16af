import ArgumentParser
import Foundation
import HeraldApp
import HeraldConfig

extension Herald {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show the server, the sink, its streams, what the safeguard would do now, and the daemon's reminders.",
            discussion: "With a daemon running and `mqtt:` configured, also its MQTT link: connected, or what it waits for.")

        @OptionGroup var options: GlobalOptions

        @Flag(help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let context = try await options.makeContext()
            var report = await StatusReport.gather(context: context)
            // The link, the reminders and the rooms' noise live in the daemon: shown when one answers (one call).
            let daemon = await DaemonClient(settings: context.configuration.api).status()
            report.rooms = report.rooms.map { room in
                var room = room
                room.noise = daemon.flatMap { DaemonClient.noise(of: room.room, in: $0) }
                return room
            }
            let link = context.configuration.mqtt == nil ? nil : daemon.flatMap(DaemonClient.link(in:))
            let reminders = daemon?["reminders"] as? [String: Any]
            if json {
                let combined = try jsonString(Combined(report: report, mqtt: link))
                var object = (try JSONSerialization.jsonObject(with: Data(combined.utf8)) as? [String: Any]) ?? [:]
                if let reminders { object["reminders"] = reminders }
                print(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self))
                return
            }
            print(report.text)
            if let link { print(link.text) }
            guard let reminders else { return }
            let next = reminders["next"] as? [[String: Any]] ?? []
            print(next.isEmpty ? "reminders: none due" : "next reminders:")
            for due in next { print("  \(due["due"] as? String ?? "?")  \(due["id"] as? String ?? "")  \(due["text"] as? String ?? "")") }
            for waiting in reminders["waiting_for_ack"] as? [[String: Any]] ?? [] {
                print("  WAITING for an acknowledgement: \(waiting["id"] as? String ?? "")  \(waiting["body"] as? String ?? "")  since \(waiting["waiting_since"] as? String ?? "")  (herald remind ack \(waiting["id"] as? String ?? ""))")
            }
        }
    }

    /// The report with the daemon's link beside it, flat as before for scripts that read the report.
    struct Combined: Encodable {
        var report: StatusReport
        var mqtt: LinkStatus?

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encodeIfPresent(mqtt, forKey: .mqtt)
        }

        enum Key: String, CodingKey { case mqtt }
    }
}

import ArgumentParser
import Foundation
import HeraldApp
import HeraldServer

extension Herald {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the server, the sink, its streams, and what the safeguard would do now.",
            discussion: "With a daemon running and `mqtt:` configured, also its MQTT link: connected, or what it waits for.")

        @OptionGroup var options: GlobalOptions

        @Flag(help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let context = try await options.makeContext()
            let report = await StatusReport.gather(context: context)
            let link = context.configuration.mqtt == nil ? nil : await DaemonClient(settings: context.configuration.api).link()
            if json {
                print(try jsonString(Combined(report: report, mqtt: link)))
            } else {
                print(report.text)
                if let link { print(link.text) }
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

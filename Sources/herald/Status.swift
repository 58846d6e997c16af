import ArgumentParser
import HeraldApp

extension Herald {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the server, the sink, its streams, and what the safeguard would do now.")

        @OptionGroup var options: GlobalOptions

        @Flag(help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let context = try await options.makeContext()
            let report = await StatusReport.gather(context: context)
            print(json ? try jsonString(report) : report.text)
        }
    }
}

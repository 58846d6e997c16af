import ArgumentParser
import Foundation
import HeraldApp
import HeraldCore

extension Herald {
    struct Play: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play a sound file with the safeguard: unmute, raise, duck, play, restore.",
            discussion: "Returns after the sink and the other streams are restored. Ctrl-C fades out and restores.")

        @OptionGroup var options: GlobalOptions

        @Argument(help: ArgumentHelp("A file libsndfile decodes: WAV, FLAC, Ogg Vorbis/Opus, MP3.", valueName: "FILE"))
        var file: String

        @Option(help: "critical, high, normal or low.")
        var priority: Priority = .normal

        @Flag(help: "Print the log row as JSON.")
        var json = false

        func run() async throws {
            let context = try await options.makeContext()
            let player = FilePlayer(context: context)
            let path = file
            let task = Task { try await player.play(path: path, priority: priority) }
            let signals = SignalCanceller(task: task)
            defer { signals.stop() }
            do {
                let record = try await task.value
                if json {
                    print(try jsonString(record))
                } else if record.outcome == .suppressedMuted {
                    print("not played: the sink is muted and safeguard.mute is respect")
                } else {
                    print("\(record.outcome?.rawValue ?? "?") \(path) on \(record.sink ?? "?")")
                }
            } catch {
                throw fail(error)
            }
        }
    }
}

extension Priority: ExpressibleByArgument {}

import ArgumentParser
import HeraldApp
import HeraldCore

extension Herald {
    struct Play: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "play",
            abstract: "Play a sound file with the safeguard: unmute, raise, duck, play, restore.",
            discussion: "Returns after the sink and the other streams are restored. Ctrl-C fades out and restores.")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var announceOptions: AnnounceOptions

        @Argument(help: ArgumentHelp("A file libsndfile decodes: WAV, FLAC, Ogg Vorbis/Opus, MP3.", valueName: "FILE"))
        var file: String

        func run() async throws {
            try await announce(AnnouncementRequest(body: .file(path: file)), options: options,
                               announceOptions: announceOptions)
        }
    }
}

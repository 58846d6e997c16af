import ArgumentParser

/// The `herald` command: speaks payments and reminders, and makes sure they are heard.
@main
struct Herald: AsyncParsableCommand {
    /// Reported by `/v1/status`.
    static let version = "0.3.0"

    static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "Plays announcements on a PulseAudio sink so they are heard, then puts the sink back.",
        subcommands: [Serve.self, Play.self, Say.self, Pay.self, Status.self, History.self, Restore.self, CacheCommand.self,
                      PackCommand.self, ConfigCommand.self, Remind.self])
}

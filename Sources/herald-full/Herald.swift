import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// The `herald` command: speaks payments and reminders, and makes sure they are heard.
@main
struct Herald: AsyncParsableCommand {
    /// The one version string: `herald --version`, `/v1/status`, the MQTT status, `/metrics`
    /// (`herald_build_info`) and the .deb's version (scripts/package.sh asks `herald --version`).
    static let version = "0.3.0"

    // Every command names itself: without a commandName, ArgumentParser derives it with
    // String(describing:), whose protocol checks scan every conformance in this large binary,
    // once per command, at every start (about a fifth of `herald --help`'s time).
    static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "Plays announcements on a PulseAudio sink so they are heard, then puts the sink back.",
        version: version,
        subcommands: [Serve.self, Play.self, Say.self, Pay.self, Status.self, History.self, Stats.self, Doctor.self, Restore.self, CacheCommand.self, CalendarCommand.self, ButtonCommand.self, PayTotal.self,
                      PackCommand.self, VoiceCommand.self, ConfigCommand.self, NoiseCommand.self, Remind.self, Sign.self, Fleet.self])

    /// Everything this process creates is its user's alone (folders 0700, files 0600): the places
    /// Herald creates files give those modes themselves, and the umask covers what a library
    /// makes on its own (a temporary file, a socket before its chmod).
    static func main() async {
        umask(0o077)
        // A write to a child that exited without reading (a TTS program, Piper) must fail with
        // EPIPE, not kill Herald: set once here, for the whole process.
        signal(SIGPIPE, SIG_IGN)
        var arguments = globalOptionsAfterCommand(Array(CommandLine.arguments.dropFirst()))
        // `pay` takes any word as its amount: `herald pay total` is its own command.
        if arguments.starts(with: ["pay", "total"]) { arguments = ["pay-total"] + arguments.dropFirst(2) }
        if ["play", "say", "pay"].contains(arguments.first ?? "") { SignalCanceller.catchEarly() }
        await main(arguments)
    }

    /// `herald --config FILE fleet serve` as `herald fleet serve --config FILE`: the options every
    /// command takes may come before the command too (the parser reads them only after it).
    /// Placed before a `--`, after which everything is text.
    static func globalOptionsAfterCommand(_ arguments: [String]) -> [String] {
        var rest = arguments[...]
        var global: [String] = []
        while let first = rest.first {
            if first == "--config", rest.count >= 2 {
                global += rest.prefix(2)
                rest = rest.dropFirst(2)
            } else if first.hasPrefix("--config=") || first == "-v" || first == "--verbose" {
                global.append(first)
                rest = rest.dropFirst()
            } else {
                break
            }
        }
        guard !global.isEmpty, !rest.isEmpty else { return arguments }
        var moved = Array(rest)
        moved.insert(contentsOf: global, at: moved.firstIndex(of: "--") ?? moved.endIndex)
        return moved
    }
}

import Foundation
import HeraldCore

/// Herald's settings, read once from the YAML file and validated.
public struct HeraldConfiguration: Sendable, Equatable {
    /// The file the settings came from; nil when the built-in defaults are used.
    public var file: String?
    public var safeguard: SafeguardSettings
    /// The SQLite file holding the log; the restore journal's files sit beside it.
    public var databasePath: String
    /// Where the lock and, by default, the database live.
    public var stateDirectory: String
    public var speech: SpeechSettings
    public var cache: CacheSettings
    /// Chime file per priority (a path; nil for none).
    public var chimes: [Priority: String]
    /// The project's `Sounds` folder: chimes, voice packs, samples.
    public var soundsDirectory: String
    public var api = APISettings()
    public var queue = QueueSettings()
    public var history = HistorySettings()
    /// Mute policy and max age per priority (`priorities.<p>`).
    public var priorities: PriorityPolicies = .defaults
    public var audioURL = AudioURLSettings()
    /// The MQTT link; nil when `mqtt.broker` is not set.
    public var mqtt: MQTTSettings?
    /// The fleet console's settings (`herald fleet serve`); nil when `fleet.database` is not set.
    public var fleet: FleetSettings?
    public var reminders = ReminderSettings()
    /// `calendars:`: calendars whose events are said as reminders.
    public var calendars: [CalendarSettings] = []
    /// `buttons:`: buttons whose presses acknowledge, repeat, total, call for help (docs/buttons.md).
    public var buttons: [ButtonSettings] = []
    /// `quiet_hours` and `priorities.<p>.quiet_hours`.
    public var quietHours = QuietHours()
    /// `rooms:` and `groups:` as the file gives them; nil when it names no rooms.
    public var configuredRooms: RoomSettings?
    /// The files holding its tokens, secrets and passwords (`SecretFile.exposed` names those
    /// other accounts can read: `config check`, `doctor` and `serve` warn about them).
    public var secretFiles: [SecretFile] = []

    /// The rooms of the house: the configured ones, else the one room `default` on `sink:` (or
    /// the server's default sink) with the house's safeguard, as before rooms existed.
    public var rooms: RoomSettings { configuredRooms ?? .single(safeguard) }

    /// The clip cache's place, size cap and warm list.
    public struct CacheSettings: Sendable, Equatable {
        public var directory: String
        public var maxBytes: Int64
        /// Sentences `herald cache warm` renders ahead of time.
        public var warm: [String]
    }

    /// The built-in defaults, with the state under `stateDirectory`.
    public static func defaults(stateDirectory: String, soundsDirectory: String = defaultSoundsDirectory())
        -> HeraldConfiguration {
        var speech = SpeechSettings()
        speech.packsDirectory = (soundsDirectory as NSString).appendingPathComponent("voices")
        speech.piper = PiperSettings(folder: (stateDirectory as NSString).appendingPathComponent("piper"))
        return HeraldConfiguration(
            file: nil, safeguard: .defaults,
            databasePath: (stateDirectory as NSString).appendingPathComponent("herald.sqlite"),
            stateDirectory: stateDirectory, speech: speech,
            cache: CacheSettings(directory: (stateDirectory as NSString).appendingPathComponent("cache"),
                                 maxBytes: 50_000_000, warm: []),
            chimes: defaultChimes.mapValues { chimePath($0, in: soundsDirectory) },
            soundsDirectory: soundsDirectory)
    }

    /// A chime before critical announcements only: a payment's first word should come first.
    public static let defaultChimes: [Priority: String] = [.critical: "alert"]

    /// `Sounds/chimes/NAME.flac`, or `name` itself when it is a path.
    public static func chimePath(_ name: String, in soundsDirectory: String) -> String {
        name.contains("/") ? name : (soundsDirectory as NSString).appendingPathComponent("chimes/\(name).flac")
    }

    /// The file of the named clip in `samples/` or `chimes/` of the sounds folder (WAV, FLAC or
    /// Ogg); nil when the name is not a plain clip name (letters, digits, - and _) or no file has it.
    public static func clipPath(named name: String, in soundsDirectory: String) -> String? {
        guard isClipName(name) else { return nil }
        for folder in ["samples", "chimes"] {
            for suffix in ["wav", "flac", "ogg"] {
                let path = "\(soundsDirectory)/\(folder)/\(name).\(suffix)"
                if FileManager.default.fileExists(atPath: path) { return path }
            }
        }
        return nil
    }

    /// A plain clip or chime name: 1 to 64 ASCII letters, digits, `-` and `_`, so never a path
    /// (a name may come from the network).
    public static func isClipName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// `$HERALD_SOUNDS`, else a `Sounds` folder beside or above the executable (a build tree),
    /// or `share/herald/Sounds` above it (the .deb: /usr/libexec/herald/herald-full finds /usr/share/herald/Sounds,
    /// wherever the package was unpacked), else `/usr/local/share/herald/Sounds`.
    public static func defaultSoundsDirectory(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String {
        if let path = environment["HERALD_SOUNDS"], !path.isEmpty { return path }
        // The running executable itself: `herald` found on PATH has no folder in argv[0].
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first ?? "/"
        var folder = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            for candidate in [folder.appendingPathComponent("Sounds"), folder.appendingPathComponent("share/herald/Sounds")]
            where FileManager.default.fileExists(atPath: candidate.appendingPathComponent("chimes").path) {
                return candidate.path
            }
            folder.deleteLastPathComponent()
        }
        return "/usr/local/share/herald/Sounds"
    }

    /// The config file to use: `--config`, else `HERALD_CONFIG`, else none (built-in defaults).
    public static func path(explicit: String?, environment: [String: String]) -> String? {
        if let explicit, !explicit.isEmpty { return explicit }
        if let fromEnvironment = environment["HERALD_CONFIG"], !fromEnvironment.isEmpty { return fromEnvironment }
        return nil
    }

    /// The per-user state directory: `$XDG_STATE_HOME/herald`, else `~/.local/state/herald`.
    public static func defaultStateDirectory(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty {
            return (state as NSString).appendingPathComponent("herald")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return (home as NSString).appendingPathComponent(".local/state/herald")
    }

    /// Reads and validates `file` as far as it goes without touching other files, or returns the
    /// defaults when `file` is nil. Every command loads its config through
    /// `HeraldConfiguration.read` (HeraldApp), which runs the checks left and throws.
    ///
    /// It runs where it is called, so a caller that must not hold up the cooperative pool runs it
    /// on a thread of its own (the daemon's reload does). A file is at most 1 MiB and is checked
    /// in a bounded time.
    /// - Throws: `ConfigError` when the file cannot be read or is not a YAML mapping.
    public static func draft(file: String?, stateDirectory: String) throws -> ConfigDraft {
        let defaults = HeraldConfiguration.defaults(stateDirectory: stateDirectory)
        guard let file else { return ConfigDraft(configuration: defaults, problems: [], lines: [:]) }
        let text = try ConfigFileText.read(file)
        let layout = YAMLLayout(text: text, file: file)
        guard layout.isParsable else { throw ConfigError(layout.problems) }
        // The values come from the one parse the layout made, with the line of each key.
        var values = ConfigValues(layout: layout, file: file)
        let configuration = values.configuration(defaults: defaults)
        return ConfigDraft(configuration: configuration, problems: layout.problems + values.problems, lines: layout.lines,
                           givenPiperPython: values.givenPiperPython, givenPiperModel: values.givenPiperModel,
                           piperVoices: values.piperVoices)
    }
}

/// A config file read and validated as far as it goes without touching any other file or
/// engine: the values, the problems found, and where each key sits, for the checks that do touch
/// them (the speech command's program, Piper's voices, the amount grammars). Those run above both
/// this module and Speech (`HeraldConfiguration.read` in HeraldApp); `finished()` then gives the
/// configuration, or every problem by line.
public struct ConfigDraft: Sendable {
    /// The values as read; the speech checks may still fill in Piper's model and voices.
    public var configuration: HeraldConfiguration
    /// The problems found so far.
    public private(set) var problems: [ConfigProblem]
    /// Dotted key -> 1-based line.
    let lines: [String: Int]
    /// `speech.piper.python` was given (not empty).
    public let givenPiperPython: Bool
    /// `speech.piper.model` was given (not empty).
    public let givenPiperModel: Bool
    /// `speech.piper.voices` as written, in file order: the alias, the value, and the value as a
    /// path relative to the file when it is one.
    public let piperVoices: [(alias: String, written: String, voice: String)]

    init(configuration: HeraldConfiguration, problems: [ConfigProblem], lines: [String: Int],
         givenPiperPython: Bool = false, givenPiperModel: Bool = false,
         piperVoices: [(alias: String, written: String, voice: String)] = []) {
        self.configuration = configuration
        self.problems = problems
        self.lines = lines
        self.givenPiperPython = givenPiperPython
        self.givenPiperModel = givenPiperModel
        self.piperVoices = piperVoices
    }

    /// Adds a problem at the line of `key`.
    public mutating func report(_ key: String, _ message: String) {
        problems.append(ConfigProblem(file: configuration.file ?? "", line: lines[key], key: key, message: message))
    }

    /// The configuration, when no problem was found.
    /// - Throws: `ConfigError` with every problem, by line.
    public func finished() throws(ConfigError) -> HeraldConfiguration {
        guard problems.isEmpty else { throw ConfigError(problems.sorted { ($0.line ?? 0) < ($1.line ?? 0) }) }
        return configuration
    }
}

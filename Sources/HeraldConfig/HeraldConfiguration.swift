import Configuration
import Foundation
import HeraldCore
import SystemPackage

/// Herald's settings, read once from the YAML file and validated.
public struct HeraldConfiguration: Sendable, Equatable {
    /// The file the settings came from; nil when the built-in defaults are used.
    public var file: String?
    public var safeguard: SafeguardSettings
    /// The SQLite file holding the log and the restore journal.
    public var databasePath: String
    /// Where the lock and, by default, the database live.
    public var stateDirectory: String

    /// The built-in defaults, with the state under `stateDirectory`.
    public static func defaults(stateDirectory: String) -> HeraldConfiguration {
        HeraldConfiguration(file: nil, safeguard: .defaults,
                            databasePath: (stateDirectory as NSString).appendingPathComponent("herald.sqlite"),
                            stateDirectory: stateDirectory)
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

    /// Reads and validates `file`, or returns the defaults when `file` is nil.
    /// - Throws: `ConfigError` naming the file, line and key of every problem.
    public static func load(file: String?, stateDirectory: String) async throws -> HeraldConfiguration {
        let defaults = HeraldConfiguration.defaults(stateDirectory: stateDirectory)
        guard let file else { return defaults }
        func fail(_ message: String) -> ConfigError {
            ConfigError([ConfigProblem(file: file, line: nil, key: "", message: message)])
        }
        guard FileManager.default.fileExists(atPath: file) else {
            throw fail("no such config file; check the path, or copy Config/herald.yaml there")
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw fail("cannot read the config file; check its permissions")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw fail("not UTF-8 text") }
        let layout = YAMLLayout(text: text, file: file)
        guard layout.isParsable else { throw ConfigError(layout.problems) }
        let reader: ConfigReader
        do {
            reader = ConfigReader(provider: try await FileProvider<YAMLSnapshot>(filePath: FilePath(file)))
        } catch {
            throw fail("cannot read as YAML: \(error)")
        }
        var values = ConfigValues(reader: reader, layout: layout, file: file)
        let configuration = values.configuration(defaults: defaults)
        let problems = (layout.problems + values.problems).sorted { ($0.line ?? 0) < ($1.line ?? 0) }
        guard problems.isEmpty else { throw ConfigError(problems) }
        return configuration
    }
}

import ArgumentParser
import Foundation
import HeraldApp
import HeraldConfig
import Logging

/// Options every subcommand takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The YAML config file (default: $HERALD_CONFIG, else built-in defaults).",
                                            valueName: "FILE"))
    var config: String?

    @Flag(name: .shortAndLong, help: "Log what the safeguard does, to standard error.")
    var verbose = false

    /// The config file in use, if any.
    var configPath: String? {
        HeraldConfiguration.path(explicit: config, environment: ProcessInfo.processInfo.environment)
    }

    func makeLogger() -> Logger {
        var logger = Logger(label: "herald") { StreamLogHandler.standardError(label: $0) }
        let fromEnvironment = ProcessInfo.processInfo.environment["HERALD_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
        // Quiet by default: a failure is printed once as `herald: ...` and logged in SQLite (`herald history`).
        logger.logLevel = verbose ? .debug : (fromEnvironment ?? .critical)
        return logger
    }

    /// Loads the config and opens the database, or exits with a one-line error per problem.
    /// - Parameter tolerant: the daemon's mode: an unusable database degrades instead of failing.
    func makeContext(logger: Logger? = nil, tolerant: Bool = false) async throws -> HeraldContext {
        try makeContext(configuration: try await loadConfiguration(), logger: logger, tolerant: tolerant)
    }

    /// Opens the database of `configuration`, or exits with a one-line error.
    func makeContext(configuration: HeraldConfiguration, logger: Logger? = nil, tolerant: Bool = false) throws -> HeraldContext {
        do {
            return try HeraldContext(configuration: configuration, logger: logger ?? makeLogger(), tolerant: tolerant)
        } catch {
            throw fail(error)
        }
    }

    /// Loads the config (the file, or the built-in defaults), or exits with a one-line error per problem.
    func loadConfiguration() async throws -> HeraldConfiguration {
        let environment = ProcessInfo.processInfo.environment
        do {
            return try await HeraldConfiguration.load(
                file: configPath, stateDirectory: HeraldConfiguration.defaultStateDirectory(environment: environment))
        } catch {
            throw fail(error)
        }
    }
}

/// Prints `herald: message` on standard error and returns the exit code to throw.
func fail(_ error: any Error) -> ExitCode {
    fail("\(error)")
}

func fail(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("herald: \(message)\n".utf8))
    return ExitCode.failure
}

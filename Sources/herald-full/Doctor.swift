import ArgumentParser
import Foundation
import HeraldApp
import HeraldConfig

extension Herald {
    struct Doctor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "doctor",
            abstract: "Check everything speech depends on; each check says ok, warning or problem, and what to do.",
            discussion: """
                Checks the config, the sound server, the target sink (present, muted, quiet), other programs on it, \
                a short tone heard on the sink's monitor, the process lock, the daemon, the database, disk space \
                for the cache, espeak-ng's voices, the voice packs and the time zone. Exits 1 when an announcement \
                made now would not be heard (any problem), 0 otherwise (warnings included).
                """)

        @OptionGroup var options: GlobalOptions

        @Flag(help: "Print the checks as JSON.")
        var json = false

        @Flag(name: .customLong("no-tone"), help: "Skip the tone: change nothing on the sink, play nothing.")
        var noTone = false

        func run() async throws {
            var findings: [DoctorFinding] = []
            let environment = ProcessInfo.processInfo.environment
            let state = HeraldConfiguration.defaultStateDirectory(environment: environment)
            let configuration: HeraldConfiguration
            do {
                configuration = try await HeraldConfiguration.load(file: options.configPath, stateDirectory: state)
                findings.append(DoctorFinding("config", .ok, options.configPath.map { "\($0) loads" } ?? "no config file: the built-in defaults"))
            } catch let error as ConfigError {
                // The daemon would refuse to start on this file: that alone keeps speech from being heard.
                for problem in error.problems {
                    findings.append(DoctorFinding("config", .problem, "\(problem)", action: "fix the file; `herald config check` lists every problem"))
                }
                configuration = HeraldConfiguration.defaults(stateDirectory: state)
            } catch {
                findings.append(DoctorFinding("config", .problem, "\(error)", action: "fix the file; `herald config check` lists every problem"))
                configuration = HeraldConfiguration.defaults(stateDirectory: state)
            }
            // Tolerant: a database that cannot be opened is one finding, not the end of the diagnosis.
            let context = try options.makeContext(configuration: configuration, tolerant: true)
            findings += await HeraldApp.Doctor(context: context, playTone: !noTone).run()
            findings.append(await daemonCheck(configuration.api))
            let report = DoctorReport(findings: findings)
            print(json ? try jsonString(report) : report.text)
            if !report.speechWouldBeHeard { throw ExitCode.failure }
        }

        /// Whether `herald serve` answers: without it, say/pay still play, but reminders, the API
        /// and MQTT do not run.
        func daemonCheck(_ api: APISettings) async -> DoctorFinding {
            guard let reply = try? await DaemonClient(settings: api).call(.GET, "/v1/status") else {
                return DoctorFinding("daemon", .warning, "herald serve does not answer on \(api.baseURL): say and pay play by themselves, but reminders, the HTTP API and MQTT are not running",
                                     action: "systemctl --user start herald (docs/operations.md, \"Running it as a service\"), or herald serve")
            }
            guard reply.status == 200, let status = (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any] else {
                return DoctorFinding("daemon", .warning, "something answers on \(api.baseURL) with HTTP \(reply.status), not herald serve's status",
                                     action: reply.status == 401 || reply.status == 403 ? "give this user's config an admin token from api.tokens" : "check what listens on that port")
            }
            let version = status["version"] as? String ?? "?"
            let daemon = status["daemon"] as? [String: Any] ?? [:]
            let sound = daemon["sound_server"] as? String ?? daemon["soundServer"] as? String ?? "?"
            let health = status["health"] as? String ?? "ok"
            let level: DoctorFinding.Level = health == "ok" ? .ok : .warning
            return DoctorFinding("daemon", level, "herald serve \(version) answers on \(api.baseURL): \(sound); log \(health)",
                                 action: level == .ok ? nil : "see `herald status` and the daemon's log (journalctl --user -u herald)")
        }
    }
}

import Foundation
import Testing

/// The private PostgreSQL server that `scripts/test.sh` starts (scripts/private-postgres.sh):
/// a fresh database per test, psql to look inside, and a stop and start for "the database is down".
enum Postgres {
    static let environment = ProcessInfo.processInfo.environment
    static let port = environment["HERALD_TEST_PG_PORT"].flatMap(Int.init) ?? 0
    static let bin = environment["HERALD_TEST_PG_BIN"] ?? ""
    static let data = environment["HERALD_TEST_PG_DATA"] ?? ""
    /// The server's options (port, socket folder, loopback only), for `start`.
    static let options = environment["HERALD_TEST_PG_OPTIONS"] ?? ""
    static var isConfigured: Bool { port != 0 && !bin.isEmpty && !data.isEmpty && !options.isEmpty }
    /// Under CI a missing server must fail the tests, never skip them.
    static var shouldRun: Bool { (isConfigured && Broker.isConfigured) || environment["CI"] == "true" }

    static func require() throws {
        guard isConfigured else {
            throw SoundServer.CommandFailed(description: "no private PostgreSQL: run the tests with scripts/test.sh (it exports HERALD_TEST_PG_PORT, _BIN and _DATA)")
        }
    }

    /// A new, empty database: its `postgres://` address.
    static func freshDatabase() throws -> String {
        let name = "fleet_" + UUID().uuidString.prefix(8).lowercased()
        let result = try SoundServer.run(bin + "/createdb", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "herald", name])
        guard result.status == 0 else { throw SoundServer.CommandFailed(description: "createdb \(name): \(result.stderr)") }
        return "postgres://herald@127.0.0.1:\(port)/\(name)"
    }

    /// What psql prints for `sql` (unaligned, tuples only) in the database at `url`.
    static func query(_ url: String, _ sql: String) throws -> String {
        let result = try SoundServer.run(bin + "/psql", [url, "-Atc", sql])
        guard result.status == 0 else { throw SoundServer.CommandFailed(description: "psql: \(sql): \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// pg_ctl as the server's own user (it refuses root), spawned with a fresh signal mask (the
    /// test runner's threads block SIGTERM and SIGINT, and a server inheriting that would ignore
    /// the next stop) and no pipe (the server would keep it open), then `ready` awaited.
    private static func pgctl(_ arguments: [String], until ready: Bool) throws {
        let command = [bin + "/pg_ctl"] + arguments
        try Broker.spawnAndReap(getuid() == 0 ? ["runuser", "-u", "postgres", "--"] + command : command)
        try SoundServer.waitFor("PostgreSQL to \(ready ? "accept" : "refuse") connections", timeout: 30) {
            (try SoundServer.run(bin + "/pg_isready", ["-h", "127.0.0.1", "-p", "\(port)"]).status == 0) == ready
        }
    }

    /// An immediate stop, as a crash or a pulled cable would be (a fast one was seen here to wait
    /// minutes for a backend before the server went).
    static func stop() throws { try pgctl(["-D", data, "-m", "immediate", "-w", "stop"], until: false) }

    /// Back on the same port, with the options scripts/private-postgres.sh started it with.
    static func start() throws { try pgctl(["-D", data, "-w", "-t", "30", "-l", data + "/../postgres.log", "-o", options, "start"], until: true) }
}

/// A running `herald --config FILE fleet serve`, as an operator starts it.
final class FleetConsole {
    let process: Process
    let base: String
    let folder: String
    /// Its state folder (XDG_STATE_HOME), where its spool is: a console started again with the
    /// same one finds what the killed one left.
    let state: String

    /// `name`: its console name ("": none, as an operator may leave it); `alarms`: the lines under `alarms:` (indented by four spaces);
    /// `broker`: the lines that reach the broker (`broker:`, and `username:`, `password:`, `ca:`);
    /// `extra`: more lines under `fleet:` (indented by two spaces); `authority`: the CA that signed
    /// its `tls_cert` (in `extra`): then it is reached over HTTPS, checked by curl. `state`: the
    /// state folder of a console before it (default: a new one in its own folder). `shareGroup`:
    /// its `fleet.share_group`, by default one of the consoles on its database (each test makes its
    /// own), unless `extra` names one: a console of an earlier test killed on the default group
    /// keeps its broker session, and its share of every message, for `session_expiry` (60 s);
    /// that must not take a later test's messages.
    init(name: String, database: String, alarms: String = "", broker: [String] = ["broker: \(Broker.url)"],
         extra: String = "", authority: String? = nil, port: Int = OnTheTestSink.DaemonTests.port(), state: String? = nil,
         shareGroup: String? = nil) throws {
        folder = NSTemporaryDirectory() + "herald-fleet-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let state = state ?? folder + "/state"
        self.state = state
        let config = folder + "/console.yaml"
        try """
            fleet:
            \(broker.map { "  " + $0 }.joined(separator: "\n"))
              database: \(database)
              listen: 127.0.0.1:\(port)
            \(name.isEmpty ? "" : "  name: " + name)
            \(extra.contains("share_group:") ? "" : "  share_group: " + (shareGroup ?? Self.group(of: database)))
            \(extra)
              alarms:
            \(alarms.isEmpty ? "    offline_after: 5m" : alarms)
            """.write(toFile: config, atomically: true, encoding: .utf8)
        base = "\(authority == nil ? "http" : "https")://127.0.0.1:\(port)"
        // Its log to a file: a pipe nobody reads would stop a console that logs much.
        let log = folder + "/console.log"
        process = try SoundServer.start("/bin/sh", ["-c", #"exec "$0" "$@" 2>>"$HERALD_TEST_LOG""#, HeraldHarness.binary,
                                                    "--config", config, "fleet", "serve"],
                                       environment: ["HERALD_TEST_LOG": log, "XDG_STATE_HOME": state])
        let (base, process) = (base, process)
        try SoundServer.waitFor("the fleet console to answer", timeout: 20) {
            guard process.isRunning else {
                let errors = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw SoundServer.CommandFailed(description: "herald fleet serve exited: \(errors.suffix(2000))")
            }
            if let authority {
                let answer = try SoundServer.run("curl", ["-s", "--max-time", "1", "--cacert", authority, "\(base)/v1/health"]).stdout
                return (try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])?["status"] as? String == "ok"
            }
            return (try? Daemon.request("GET", "\(base)/v1/health", timeout: 1).1 as? [String: Any])?["status"] as? String == "ok"
        }
    }

    /// A share group for the consoles on `database`: its name (`fleet_` and 8 hex digits).
    static func group(of database: String) -> String {
        "test-" + (database.split(separator: "/").last.map(String.init) ?? "fleet")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// SIGTERM, and SIGKILL after 16 s (the console's own limits: 10 s to finish, 5 more once
    /// cancelled): a console that does not stop must not hold the suite.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        if (try? SoundServer.waitFor("the fleet console to stop", timeout: 16) { !process.isRunning }) == nil {
            Issue.record("herald fleet serve did not stop within 16 s of SIGTERM; killed")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }

    /// kill -9, as a crash or the OOM killer would.
    func crash() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGSTOP for `seconds`, then SIGCONT: a console that falls behind (starved of CPU, swapping).
    func pause(seconds: Double) {
        kill(process.processIdentifier, SIGSTOP)
        Thread.sleep(forTimeInterval: seconds)
        kill(process.processIdentifier, SIGCONT)
    }

    func get(_ path: String) throws -> Any? {
        let (status, body) = try Daemon.request("GET", base + path, timeout: 10)
        guard status == 200 else { throw SoundServer.CommandFailed(description: "GET \(path): \(status) \(String(describing: body))") }
        return body
    }

    /// What it logged so far.
    var log: String { (try? String(contentsOfFile: folder + "/console.log", encoding: .utf8)) ?? "" }

    var hubs: [[String: Any]] { ((try? get("/v1/hubs")) as? [[String: Any]]) ?? [] }

    func alarms(_ query: String = "") -> [[String: Any]] { ((try? get("/v1/alarms" + query)) as? [[String: Any]]) ?? [] }
}

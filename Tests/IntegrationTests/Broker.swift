import Foundation
import Synchronization
import Testing

/// The private Mosquitto broker that `scripts/test.sh` starts beside PulseAudio, and the
/// mosquitto_pub / mosquitto_sub clients that play the backend in these tests.
enum Broker {
    static let environment = ProcessInfo.processInfo.environment
    static let port = environment["HERALD_TEST_MQTT_PORT"].flatMap(Int.init) ?? 0
    static var isConfigured: Bool { port != 0 && environment["HERALD_TEST_MQTT_CONFIG"] != nil }
    /// Under CI a missing broker must fail the tests, never skip them.
    static var shouldRun: Bool { isConfigured || environment["CI"] == "true" }
    static var url: String { "mqtt://127.0.0.1:\(port)" }

    static func require() throws {
        guard isConfigured else { throw BrokerMissing() }
    }

    struct BrokerMissing: Error, CustomStringConvertible {
        var description: String {
            "no private Mosquitto broker: run the tests with scripts/test.sh (it exports HERALD_TEST_MQTT_PORT and HERALD_TEST_MQTT_CONFIG)"
        }
    }

    /// Publishes `payload` with QoS 1, passed on standard input (never as an argument), to the
    /// shared broker or through `access` (another broker, TLS, a user).
    static func publish(_ topic: String, _ payload: String, retain: Bool = false, via access: BrokerAccess = .shared) throws {
        try publish(topic, payload, retain: retain, userProperties: [], via: access)
    }

    /// The same over MQTT 5, with user properties on the PUBLISH: what a backend that signs its
    /// payments sends (`herald-signature: t=UNIX_SECONDS,v1=HEX`).
    /// - Parameter perLine: each line of `payload` is a message of its own, in one connection.
    static func publish(_ topic: String, _ payload: String, retain: Bool = false, userProperties: [(name: String, value: String)],
                        perLine: Bool = false, via access: BrokerAccess = .shared) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["mosquitto_pub"] + access.arguments + ["-q", "1", "-t", topic, perLine ? "-l" : "-s"] + (retain ? ["-r"] : [])
        if !userProperties.isEmpty {
            arguments += ["-V", "mqttv5"]
            for property in userProperties { arguments += ["-D", "publish", "user-property", property.name, property.value] }
        }
        process.arguments = arguments
        let input = Pipe()
        process.standardInput = input
        try process.run()
        input.fileHandleForWriting.write(Data(payload.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SoundServer.CommandFailed(description: "mosquitto_pub to \(topic) exited \(process.terminationStatus)")
        }
    }

    /// Publishes `payload` with a `herald-signature` user property (MQTT 5) carrying `signature`
    /// as it is (`t=UNIX_SECONDS,v1=HEX`); `extraSignatures` adds more of the same property.
    static func publishSigned(_ topic: String, _ payload: String, signature: String, extraSignatures: [String] = [],
                              via access: BrokerAccess = .shared) throws {
        try publish(topic, payload, userProperties: ([signature] + extraSignatures).map { ("herald-signature", $0) }, via: access)
    }

    /// Clears the retained message on `topic` (an empty retained publish), so no later
    /// subscriber gets it.
    static func clearRetained(_ topic: String, via access: BrokerAccess = .shared) throws {
        try SoundServer.run("mosquitto_pub", access.arguments + ["-q", "1", "-t", topic, "-r", "-n"])
    }

    /// Runs `arguments` with /dev/null for its standard streams, and reaps it. Not `Process`: a
    /// daemon forked from its child keeps the descriptors Foundation watches, and `waitUntilExit`
    /// would never return.
    static func spawnAndReap(_ arguments: [String]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // A fresh signal mask and default handlers: the test runner's threads block SIGTERM, and a
        // broker inheriting that would outlive scripts/test.sh's kill.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        guard rc == 0 else { throw SoundServer.CommandFailed(description: "\(arguments[0]): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }

    /// The retained message on `topic` (the hub's status), as JSON.
    static func retained(_ topic: String, via access: BrokerAccess = .shared) throws -> [String: Any] {
        let output = try SoundServer.run("mosquitto_sub", access.arguments + ["-t", topic, "-C", "1", "-W", "3"]).stdout
        return (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any] ?? [:]
    }

    /// Stops the broker by its pid (it saves its persistence file) and starts it again from the
    /// same config: what an admin's `systemctl restart mosquitto` does.
    static func restart() throws {
        let pidFile = environment["HERALD_TEST_MQTT_PIDFILE"] ?? ""
        let pid = Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        kill(pid, SIGTERM)
        try SoundServer.waitFor("the broker to stop", timeout: 10) { kill(pid, 0) != 0 }
        // bash closes every descriptor above 2 first (glibc's closefrom action is not in
        // Swift's Glibc), so the daemon holds nothing a `Process` of this test waits on.
        try spawnAndReap(["/bin/bash", "-c",
                          #"for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; exec mosquitto -c "$1" -d"#,
                          "bash", environment["HERALD_TEST_MQTT_CONFIG"] ?? ""])
        try SoundServer.waitFor("the broker to listen again", timeout: 10) {
            (try? SoundServer.run("mosquitto_pub", ["-p", "\(port)", "-t", "herald/ping", "-n"]).status) == 0
        }
    }
}

/// How mosquitto_pub and mosquitto_sub reach a broker: its port on loopback, and the options
/// for TLS and a user when it wants them.
struct BrokerAccess: Sendable {
    var port: Int
    /// `--cafile`, `-u`, `-P`: what comes after the port.
    var options: [String] = []

    /// The private broker of scripts/test.sh, anonymous, no TLS.
    static var shared: BrokerAccess { BrokerAccess(port: Broker.port) }

    var arguments: [String] { ["-h", "127.0.0.1", "-p", "\(port)"] + options }

    /// The same broker as `user`.
    func user(_ name: String, password: String) -> BrokerAccess {
        BrokerAccess(port: port, options: options + ["-u", name, "-P", password])
    }
}

/// `mosquitto_sub` on one topic for the length of a test: every payload it prints, as JSON.
final class Subscription {
    let process: Process
    private let collector = Collector()

    /// Lines from the reading thread, whole lines only.
    private final class Collector: Sendable {
        let lines = Mutex<[String]>([])
        private let pending = Mutex<String>("")

        func append(_ text: String) {
            let complete: [String] = pending.withLock { buffer in
                buffer += text
                var parts = buffer.components(separatedBy: "\n")
                buffer = parts.removeLast()
                return parts
            }
            lines.withLock { $0 += complete }
        }
    }

    init(_ topic: String, via access: BrokerAccess = .shared) throws {
        process = try SoundServer.start("mosquitto_sub", access.arguments + ["-q", "1", "-t", topic])
        let collector = self.collector
        (process.standardOutput as! Pipe).fileHandleForReading.readabilityHandler = { handle in
            collector.append(String(decoding: handle.availableData, as: UTF8.self))
        }
        // mosquitto_sub has subscribed once the broker answers it; a short pause is enough on loopback.
        usleep(300_000)
    }

    deinit {
        (process.standardOutput as! Pipe).fileHandleForReading.readabilityHandler = nil
        // mosquitto_sub at QoS 1 may sit out a SIGTERM; the test is done with it.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Every message so far, decoded.
    var messages: [[String: Any]] {
        collector.lines.withLock { $0 }.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    /// Waits until `count` messages satisfy `condition`; returns them.
    @discardableResult
    func waitFor(_ what: String, count: Int = 1, timeout: Double = 20,
                 where condition: @escaping ([String: Any]) -> Bool = { _ in true }) throws -> [[String: Any]] {
        var found: [[String: Any]] = []
        try SoundServer.waitFor(what, timeout: timeout) {
            found = messages.filter(condition)
            return found.count >= count
        }
        return found
    }
}

import AsyncHTTPClient
import Foundation
import HeraldTesting
import NIOCore

/// `herald serve` as a box runs it: restarted at once whenever it exits, as systemd would; its
/// state folder on a small tmpfs of its own (when the soak runs as root) so the disk can be filled.
final class HeraldUnderTest: @unchecked Sendable {
    let binary: String
    let folder: String
    let port: Int
    let brokerPort: Int
    let sound: SoundWorld
    private let lock = NSLock()
    private var child: Child?
    private var stopping = false
    /// Since when it is not answering because it was killed or exited (cleared by a health answer).
    private(set) var downSince: Date?
    private(set) var exits: [(at: Date, status: Int32)] = []
    let http = HTTPClient(eventLoopGroupProvider: .singleton)

    var stateFolder: String { folder + "/state" }
    var databasePath: String { stateFolder + "/herald.sqlite" }
    var configPath: String { folder + "/herald.yaml" }
    var pid: Int32? { lock.withLock { child?.isRunning == true ? child?.pid : nil } }

    init(binary: String, folder: String, sound: SoundWorld, brokerPort: Int) throws {
        self.binary = binary
        self.folder = folder
        self.sound = sound
        self.brokerPort = brokerPort
        port = try LoopbackPort.free()
    }

    /// The config a shop would write: defaults but for where things live, the broker, and a short
    /// reminder grace so `late` and `missed` happen within minutes.
    func writeConfig(rooms: Bool = false) throws {
        let config = """
            database:
              path: \(databasePath)
            cache:
              path: \(folder)/cache
            api:
              listen: 127.0.0.1:\(port)
              rate_per_minute: 6000
            mqtt:
              broker: mqtt://127.0.0.1:\(brokerPort)
              hub: soak
            reminders:
              grace: 2m

            """ + (rooms ? Self.roomsConfig : "")
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// Three rooms on the three sinks and a group: every announcement that names none is said in all.
    static let roomsConfig = """
        rooms:
          counter: {sink: soak_a}
          kitchen: {sink: soak_b}
          back: {sink: soak_c}
        groups:
          shop: [counter, back]

        """

    /// Starts it and keeps it running until `stop`.
    func supervise() async {
        while !lock.withLock({ stopping }) {
            var environment = sound.environment
            environment["HERALD_CONFIG"] = configPath
            environment["XDG_RUNTIME_DIR"] = folder + "/herald-runtime"
            environment["XDG_STATE_HOME"] = folder + "/xdg-state"
            try? FileManager.default.createDirectory(atPath: folder + "/herald-runtime", withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
            guard let started = try? await Child(binary, ["serve"], environment: environment, log: folder + "/daemon.log") else {
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            lock.withLock { child = started }
            let status = await started.exit()
            lock.withLock {
                exits.append((Date(), status))
                if downSince == nil { downSince = Date() }
            }
        }
    }

    /// kill -9, as a power cut or the OOM killer would.
    func kill9() {
        let running = lock.withLock { () -> Child? in
            if downSince == nil { downSince = Date() }
            return child
        }
        running?.signal(SIGKILL)
    }

    func shutdownClient() async { try? await http.shutdown() }

    func stop() async {
        let running = lock.withLock { () -> Child? in
            stopping = true
            return child
        }
        await running?.stop(grace: .seconds(20))
    }

    /// GET /v1/health within `timeout`: true when it answered 200 (and clears `downSince`).
    func healthy(timeout: Duration = .seconds(1)) async -> Bool {
        guard let answer = try? await call("GET", "/v1/health", timeout: timeout), answer.status == 200 else { return false }
        lock.withLock { downSince = nil }
        return true
    }

    /// One request; nil when nothing answered (the daemon down, or killed during it).
    func call(_ method: String, _ path: String, json: String? = nil,
              timeout: Duration = .seconds(10)) async throws -> (status: Int, body: [String: Any]) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .RAW(value: method)
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await http.execute(request, timeout: .milliseconds(Int64(timeout.seconds * 1000)))
        let body = try await response.body.collect(upTo: 1 << 22)
        let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
        return (Int(response.status.code), object)
    }

    /// The daemon's `/v1/status` `daemon` part, nil when it does not answer.
    func snapshot() async -> [String: Any]? {
        guard let answer = try? await call("GET", "/v1/status", timeout: .seconds(2)), answer.status == 200 else { return nil }
        return answer.body["daemon"] as? [String: Any]
    }

    /// The daemon's decoded-clip store in MB (`herald_decoded_clips_bytes` on `/metrics`); 0 before
    /// its first change, nil when the daemon does not answer.
    func decodedClipsMB() async -> Double? {
        guard let response = try? await http.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(2)),
              response.status == .ok, let body = try? await response.body.collect(upTo: 1 << 22) else { return nil }
        let line = String(buffer: body).split(separator: "\n").first { $0.hasPrefix("herald_decoded_clips_bytes ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { $0 / 1_048_576 } ?? 0
    }

    /// Resident memory and open file descriptors of the running daemon.
    func resources(decodedClipsMB: Double? = nil) -> ResourceSample? {
        guard let pid else { return nil }
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return nil }
        func megabytes(_ field: String) -> Double? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
                  let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
            return kilobytes / 1024
        }
        guard let rss = megabytes("VmRSS:"), let anon = megabytes("RssAnon:") else { return nil }
        return ResourceSample(at: Date(), pid: pid, rssMB: rss, anonMB: anon, decodedClipsMB: decodedClipsMB, fds: fds.count)
    }
}

/// One look at the daemon's memory and descriptors. `anonMB` is the part of the RSS that is the
/// process's own (heap, stacks): a leak shows there. The rest of the RSS is pages of the binary and
/// its libraries, read in as code paths are first taken, bounded by their size and given back
/// under pressure. `decodedClipsMB` is the part of the anonymous memory that is the daemon's
/// decoded-clip store, which fills up to its bound (64 MiB) as sentences are said again: what is
/// left (`ownMB`) is what must stay level.
struct ResourceSample {
    let at: Date
    let pid: Int32
    let rssMB: Double
    let anonMB: Double
    let decodedClipsMB: Double?
    let fds: Int

    /// Anonymous memory less the decoded-clip store (all of it when the store's size is unknown).
    var ownMB: Double { anonMB - (decodedClipsMB ?? 0) }
}

/// The soak's own Mosquitto (persistent, so a clean restart keeps what it queued), and the
/// backend's view of the hub's events.
final class Broker: @unchecked Sendable {
    let folder: String
    let port: Int
    private let lock = NSLock()
    private var child: Child?
    private var events: Child?
    private var lines = ""
    /// The hub's events seen so far, as JSON objects.
    private(set) var seen: [[String: Any]] = []

    init(folder: String) throws {
        self.folder = folder
        port = try LoopbackPort.free()
    }

    func start() async throws {
        let data = folder + "/mosquitto/"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let config = "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence true\npersistence_location \(data)\n"
        try config.write(toFile: folder + "/mosquitto.conf", atomically: true, encoding: .utf8)
        let started = try await Child("/usr/sbin/mosquitto", ["-c", folder + "/mosquitto.conf"], environment: [:],
                                log: folder + "/mosquitto.log")
        lock.withLock { child = started }
        for _ in 0..<100 {
            if await publish(topic: "soak/ping", message: "1") { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw SoakError("Mosquitto did not start (see \(folder)/mosquitto.log)")
    }

    /// A clean stop (it saves what it queued), for a restart.
    func stop() async {
        let running = lock.withLock { child }
        await running?.stop()
    }

    /// QoS 1 publish; false when the broker did not take it.
    func publish(topic: String, message: String) async -> Bool {
        await run("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(port)", "-q", "1", "-t", topic, "-m", message,
                                             "-i", "soak-backend-\(UUID().uuidString.prefix(8))"],
                  environment: [:]).status == 0
    }

    /// Subscribes to the hub's events (a persistent session, so none is missed across a restart
    /// of the broker) and keeps subscribing.
    func watchEvents() async {
        while !Task.isCancelled {
            if lock.withLock({ events?.isRunning != true }) {
                if let subscriber = try? await Child("/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(port)", "-q", "1", "-c",
                                                                                "-i", "soak-events", "-t", "herald/soak/events"],
                                                     environment: [:], log: nil,
                                                     onOutput: { [weak self] data in self?.take(String(decoding: data, as: UTF8.self)) }) {
                    lock.withLock { events = subscriber }
                }
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }

    private func take(_ text: String) {
        lock.withLock {
            lines += text
            while let newline = lines.firstIndex(of: "\n") {
                let line = String(lines[..<newline])
                lines = String(lines[lines.index(after: newline)...])
                if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] { seen.append(object) }
            }
        }
    }

    /// True once the hub said it has the message with this request id (`accepted` or `duplicate`).
    func acknowledged(requestID: String) -> Bool {
        lock.withLock {
            seen.contains { $0["request_id"] as? String == requestID && ["accepted", "duplicate"].contains($0["outcome"] as? String ?? "") }
        }
    }

    func shutdown() async {
        let running = lock.withLock { [events, child].compactMap { $0 } }
        for child in running { await child.stop(grace: .seconds(3)) }
    }
}

struct SoakError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

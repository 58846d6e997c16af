import Foundation

/// A sink or stream setting as the soak reads and sets it.
struct Setting: Equatable, CustomStringConvertible {
    var percent: Int
    var muted: Bool
    static let fresh = Setting(percent: 100, muted: false)
    var description: String { "\(percent)%\(muted ? " muted" : "")" }
}

/// The soak's own PulseAudio: three null sinks, a silent radio on the first, one recorder per
/// sink monitor. Killed and started again by the faults; the radio and the recorders come back
/// by themselves.
final class SoundWorld: @unchecked Sendable {
    static let sinks = ["soak_a", "soak_b", "soak_c"]
    static let radioSink = "soak_a"
    let folder: String
    private let lock = NSLock()
    private var server: Child?
    private var radio: Child?
    private var recorders: [String: Child] = [:]
    /// Loudness on each sink's monitor, read by the checker.
    let monitors: [String: MonitorRecorder]
    private var stopping = false
    /// Sinks unplugged now: their recorders wait for them.
    private var unplugged: Set<String> = []

    var runtime: String { folder + "/pulse-runtime" }
    var home: String { folder + "/pulse-home" }
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_SERVER"] = "unix:\(runtime)/native"
        return environment
    }

    init(folder: String) {
        self.folder = folder
        monitors = Dictionary(uniqueKeysWithValues: Self.sinks.map { ($0, MonitorRecorder(sink: $0)) })
    }

    /// Starts the server; `savedState: false` first forgets what it saved (volumes, mutes, streams).
    func start(savedState: Bool) async throws {
        if !savedState { try? FileManager.default.removeItem(atPath: home) }
        for path in [runtime, home] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        environment["XDG_RUNTIME_DIR"] = runtime
        environment["XDG_CONFIG_HOME"] = home + "/.config"
        environment["XDG_STATE_HOME"] = home + "/.state"
        environment.removeValue(forKey: "PULSE_SERVER")
        var arguments = ["--daemonize=no", "-n", "--exit-idle-time=-1", "--use-pid-file=no",
                         "--log-target=file:\(folder)/pulse.log",
                         "-L", "module-device-restore", "-L", "module-stream-restore", "-L", "module-suspend-on-idle"]
        for sink in Self.sinks { arguments += ["-L", Self.sinkModule(sink)] }
        arguments += ["-L", "module-native-protocol-unix socket=\(runtime)/native auth-anonymous=1"]
        let child = try await Child("/usr/bin/pulseaudio", arguments, environment: environment, log: folder + "/pulse.out")
        lock.withLock { server = child }
        for _ in 0..<100 {
            if await pactl(["info"]).status == 0 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw SoakError("PulseAudio did not start (see \(folder)/pulse.log)")
    }

    static func sinkModule(_ sink: String) -> String {
        "module-null-sink sink_name=\(sink) rate=48000 channels=2 sink_properties=device.description=Soak-\(sink)"
    }

    /// kill -9 of the server (the radio and the recorders go with it).
    func kill9() async {
        guard let server = lock.withLock({ self.server }) else { return }
        server.signal(SIGKILL)
        _ = await server.exit()
    }

    func pactl(_ arguments: [String]) async -> (status: Int32, output: String) {
        await run("/usr/bin/pactl", arguments, environment: environment)
    }

    /// Keeps the radio playing and one recorder on each monitor, starting again whatever died.
    func keepStreamsUp() async {
        while !Task.isCancelled, !lock.withLock({ stopping }) {
            if lock.withLock({ radio?.isRunning != true }) {
                let radio = try? await Child("/usr/bin/pacat", ["-d", Self.radioSink, "--raw", "--format=s16le", "--rate=48000",
                                                         "--channels=2", "--client-name=soak-radio", "--stream-name=radio",
                                                         "/dev/zero"], environment: environment, log: nil)
                lock.withLock { self.radio = radio }
            }
            for sink in Self.sinks where lock.withLock({ recorders[sink]?.isRunning != true && !unplugged.contains(sink) }) {
                let monitor = monitors[sink]!
                let recorder = try? await Child("/usr/bin/parec", ["-d", sink + ".monitor", "--raw", "--format=s16le", "--rate=16000",
                                                                  "--channels=1", "--latency-msec=20", "--client-name=soak-recorder-\(sink)"],
                                                environment: environment, log: folder + "/parec-\(sink).log",
                                                onOutput: { monitor.receive($0) })
                if let recorder {
                    lock.withLock { recorders[sink] = recorder }
                    monitor.recorderStarted()
                }
            }
            await stopMovedRecorders()
            try? await Task.sleep(for: .milliseconds(300))
        }
    }

    /// The server carries a recording stream to another source when its own goes (a sink
    /// unplugged, a server restarted with saved state), and parec cannot refuse: a recorder found
    /// on another sink's monitor is stopped (and started again on its own), and what it heard
    /// since it was last seen in place is dropped, as it may be another sink's announcements.
    private func stopMovedRecorders() async {
        // The sources read on both sides of the outputs: a server restarted between two reads
        // numbers its sources afresh, and a recorder would look moved when it is not.
        let sources = await pactl(["list", "short", "sources"])
        let outputs = await pactl(["--format=json", "list", "source-outputs"])
        let sourcesAfter = await pactl(["list", "short", "sources"])
        func numbering(_ list: String) -> [Substring] { list.split(separator: "\n").map { $0.split(separator: "\t").prefix(2).joined(separator: " ")[...] } }
        guard outputs.status == 0, sources.status == 0, sourcesAfter.status == 0,
              numbering(sources.output) == numbering(sourcesAfter.output),
              let list = try? JSONSerialization.jsonObject(with: Data(outputs.output.utf8)) as? [[String: Any]] else { return }
        var sourceNames: [Int: String] = [:]
        for line in sources.output.split(separator: "\n") {
            let fields = line.split(separator: "\t")
            if fields.count > 1, let index = Int(fields[0]) { sourceNames[index] = String(fields[1]) }
        }
        for output in list {
            guard let name = (output["properties"] as? [String: Any])?["application.name"] as? String,
                  name.hasPrefix("soak-recorder-"), let source = output["source"] as? Int else { continue }
            let sink = String(name.dropFirst("soak-recorder-".count))
            guard let monitor = monitors[sink] else { continue }
            if sourceNames[source] == sink + ".monitor" {
                monitor.seenInPlace()
            } else {
                say("soak: the recorder of \(sink) was moved to \(sourceNames[source] ?? "?"); started again")
                monitor.dropSinceSeenInPlace()
                await lock.withLock { recorders[sink] }?.stop(grace: .seconds(1))
            }
        }
    }

    /// Unloads `sink`'s module. Its recorder stops first: the server would carry it to another
    /// sink's monitor, where it would hear that sink's announcements as its own.
    func unplug(_ sink: String) async {
        let recorder = lock.withLock { () -> Child? in
            unplugged.insert(sink)
            return recorders[sink]
        }
        await recorder?.stop(grace: .seconds(1))
        let modules = await pactl(["list", "short", "modules"]).output
        guard let line = modules.split(separator: "\n").first(where: { $0.contains("sink_name=\(sink) ") }),
              let module = line.split(separator: "\t").first else { return }
        _ = await pactl(["unload-module", String(module)])
    }

    /// Loads `sink` again, as the same device.
    func plugBack(_ sink: String) async {
        _ = await pactl(["load-module"] + Self.sinkModule(sink).split(separator: " ").map(String.init))
        lock.withLock { _ = unplugged.remove(sink) }
    }

    /// Each sink's volume and mute, by name.
    func sinkSettings() async -> [String: Setting]? {
        let answer = await pactl(["--format=json", "list", "sinks"])
        guard answer.status == 0, let list = try? JSONSerialization.jsonObject(with: Data(answer.output.utf8)) as? [[String: Any]] else {
            return nil
        }
        var settings: [String: Setting] = [:]
        for sink in list {
            guard let name = sink["name"] as? String, let setting = Self.setting(sink) else { continue }
            settings[name] = setting
        }
        return settings
    }

    /// The radio's volume (nil when it is not playing now).
    func radioSetting() async -> (index: Int, setting: Setting)? {
        let answer = await pactl(["--format=json", "list", "sink-inputs"])
        guard answer.status == 0, let list = try? JSONSerialization.jsonObject(with: Data(answer.output.utf8)) as? [[String: Any]] else {
            return nil
        }
        for input in list {
            guard let properties = input["properties"] as? [String: Any], properties["application.name"] as? String == "soak-radio",
                  let index = input["index"] as? Int, let setting = Self.setting(input) else { continue }
            return (index, setting)
        }
        return nil
    }

    /// `{"mute": …, "volume": {"front-left": {"value_percent": "65%"}, …}}` as a setting (the loudest channel).
    static func setting(_ object: [String: Any]) -> Setting? {
        guard let mute = object["mute"] as? Bool, let volume = object["volume"] as? [String: Any] else { return nil }
        let percents = volume.values.compactMap { channel -> Int? in
            guard let text = (channel as? [String: Any])?["value_percent"] as? String else { return nil }
            return Int(text.trimmingCharacters(in: CharacterSet(charactersIn: "% ")))
        }
        guard let loudest = percents.max() else { return nil }
        return Setting(percent: loudest, muted: mute)
    }

    func stop() async {
        let children = lock.withLock { () -> [Child] in
            stopping = true
            return [radio, server].compactMap { $0 } + recorders.values
        }
        for child in children { await child.stop(grace: .seconds(2)) }
    }
}

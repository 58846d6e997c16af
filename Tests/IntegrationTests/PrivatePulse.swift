import Foundation

/// A PulseAudio server of the test's own, in its own runtime directory, that the test can kill
/// and start again (the shared test server must stay up for the other suites).
///
/// It loads the restore modules a desktop has, so a restarted server brings back the volumes it
/// had saved, as a real one does.
final class PrivatePulse {
    let folder: String
    let sinks: [String]
    var socket: String { folder + "/native" }
    /// The value of `PULSE_SERVER` that reaches it.
    var address: String { "unix:\(socket)" }

    init(sinks: [String] = ["herald_private"], start: Bool = true) throws {
        folder = NSTemporaryDirectory() + "herald-pulse-\(UUID().uuidString.prefix(8))"
        self.sinks = sinks
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if start { try self.start() }
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(atPath: folder)
    }

    func start() throws {
        var arguments = ["--daemonize=yes", "--use-pid-file=yes", "-n", "--exit-idle-time=-1",
                         "--log-target=file:\(folder)/pulse.log",
                         "-L", "module-device-restore", "-L", "module-stream-restore"]
        for sink in sinks {
            arguments += ["-L", "module-null-sink sink_name=\(sink) rate=48000 channels=2"]
        }
        arguments += ["-L", "module-native-protocol-unix socket=\(socket) auth-anonymous=1"]
        let result = try SoundServer.run("pulseaudio", arguments, environment: ["XDG_RUNTIME_DIR": folder, "HOME": folder])
        guard result.status == 0 else {
            throw SoundServer.CommandFailed(description: "pulseaudio did not start: \(result.stderr)")
        }
        try SoundServer.waitFor("the private PulseAudio to answer") { (try? pactl(["info"])) != nil }
    }

    /// Kills the server (SIGKILL by default: a crash) and waits until it is gone.
    func kill(signal: Int32 = SIGKILL) {
        guard let text = try? String(contentsOfFile: folder + "/pulse/pid", encoding: .utf8),
              let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return }
        _ = Foundation.kill(pid, signal)
        for _ in 0..<250 where Foundation.kill(pid, 0) == 0 { usleep(20_000) }
        try? FileManager.default.removeItem(atPath: folder + "/pulse/pid")
        try? FileManager.default.removeItem(atPath: socket)
    }

    /// Runs pactl against this server; throws when it fails.
    @discardableResult
    func pactl(_ arguments: [String]) throws -> String {
        try SoundServer.run("pactl", arguments, environment: ["PULSE_SERVER": address]).stdout
    }

    /// Raw volumes (first channel) and mute of `sink`.
    func readSink(_ sink: String) throws -> SoundServer.SinkReading {
        try SoundServer.readSink(named: sink, environment: ["PULSE_SERVER": address])
    }
}

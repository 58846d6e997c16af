import Foundation
import HeraldStore
import Testing

/// Safety first: a database that cannot be written never silences the hub (issue 8). The
/// announcement is heard on the monitor, status says "degraded", and the rows reach the file once
/// it can be written again.
extension OnTheTestSink {
@Suite final class FailingDiskTests {
    init() throws {
        try SoundServer.require()
        try SoundServer.setSink(volumes: ["60%"], muted: false)
    }

    /// A daemon whose database and cache live in `state`, listening on a port of its own.
    static func daemon(_ harness: HeraldHarness, state: String) throws -> Daemon {
        let port = UnattendedDaemonTests.port()
        try """
            sink: \(SoundServer.sink)
            database:
              path: \(state)/herald.sqlite
            cache:
              path: \(state)/cache
            api:
              listen: 127.0.0.1:\(port)
            """.write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        return try Daemon(harness, port: port)
    }

    /// POSTs a sentence and waits for its outcome, recording the monitor meanwhile.
    static func speak(_ daemon: Daemon, _ text: String) throws -> (row: [String: Any], heard: Bool) {
        let monitor = try MonitorRecording()
        let (status, row) = try daemon.post("/v1/announcements?wait=true", #"{"text": "\#(text)"}"#)
        usleep(200_000)
        monitor.stop()
        #expect(status == 200, "\(row)")
        return (row, monitor.soundSpan() != nil)
    }

    static func health(_ daemon: Daemon) throws -> String {
        try daemon.get("/v1/health")["status"] as? String ?? ""
    }

    @Test func aDatabaseFolderThatIsGoneStillSpeaksAndTheRowIsWrittenWhenItCanBe() throws {
        let harness = try HeraldHarness()
        let state = harness.folder + "/state"
        let daemon = try Self.daemon(harness, state: state)
        defer { daemon.stop() }
        #expect(try Self.speak(daemon, "Before.").row["outcome"] as? String == "played")
        // The folder removed, and a file in its place so it cannot simply be made again.
        try FileManager.default.removeItem(atPath: state)
        FileManager.default.createFile(atPath: state, contents: Data("in the way".utf8))
        let (row, heard) = try Self.speak(daemon, "Payment received: five dollars.")
        #expect(row["outcome"] as? String == "played", "\(row)")
        #expect(heard, "heard on the monitor")
        let id = try #require(row["id"] as? String)
        let health = try Self.health(daemon)
        #expect(health.hasPrefix("degraded: "), "\(health)")
        #expect(try daemon.get("/v1/status")["health"] as? String == health)
        // Usable again: the rows kept in memory reach the new file.
        try FileManager.default.removeItem(atPath: state)
        try SoundServer.waitFor("the log written again", timeout: 10) { try Self.health(daemon) == "ok" }
        let written = try AppDatabase(path: state + "/herald.sqlite")
        let stored = try #require(try runBlocking { try await written.announcement(id: id) }, "the row reached the file")
        #expect(stored.outcome == .played)
        #expect(stored.body == "Payment received: five dollars.")
    }

    @Test func aFullDiskStillSpeaksAndTheRowsAreWrittenWhenThereIsRoomAgain() throws {
        let harness = try HeraldHarness()
        let disk = harness.folder + "/disk"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        // A tmpfs of its own (the tests run as root), so filling it touches nothing else.
        let mounted = try SoundServer.run("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", disk])
        try #require(mounted.status == 0, "mount a tmpfs: \(mounted.stderr)")
        defer { _ = try? SoundServer.run("/bin/umount", ["-l", disk]) }
        let daemon = try Self.daemon(harness, state: disk + "/state")
        defer { daemon.stop() }
        #expect(try Self.speak(daemon, "Before.").row["outcome"] as? String == "played")
        _ = try SoundServer.run("/bin/dd", ["if=/dev/zero", "of=\(disk)/filler", "bs=64k"])
        let (row, heard) = try Self.speak(daemon, "Payment received: six dollars.")
        #expect(row["outcome"] as? String == "played", "\(row)")
        #expect(heard, "heard on the monitor")
        let id = try #require(row["id"] as? String)
        #expect(try Self.health(daemon).hasPrefix("degraded: "))
        try FileManager.default.removeItem(atPath: disk + "/filler")
        try SoundServer.waitFor("the log written again", timeout: 10) { try Self.health(daemon) == "ok" }
        let written = try AppDatabase(path: disk + "/state/herald.sqlite")
        let stored = try #require(try runBlocking { try await written.announcement(id: id) }, "the row reached the file")
        #expect(stored.outcome == .played)
    }
}
}

/// Runs async work from a synchronous test (these tests drive processes and block on them).
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, any Error>!
    Task {
        do { result = .success(try await body()) } catch { result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try result.get()
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `herald serve` as a process on a loopback port, driven over HTTP, heard on the monitor.
extension OnTheTestSink {
@Suite final class DaemonTests {
    init() throws {
        try SoundServer.require()
    }

    /// A loopback port nothing listens on now (the kernel's pick). A random one in 20000-40000
    /// could be a port another connection held, and `herald serve` then never listened.
    static func port() -> Int { (try? MQTTPrivateBroker.freePort()) ?? Int.random(in: 20_000...32_000) }

    func harness(_ extra: String = "") throws -> (HeraldHarness, Int) { try HeraldHarness.listening(extra) }

    /// POSTs every body to `/v1/announcements?wait=true` at once; the HTTP statuses (0: no answer).
    static func postAtOnce(_ daemon: Daemon, _ bodies: [String]) async -> [Int] {
        let url = daemon.base + "/v1/announcements?wait=true"
        return await withTaskGroup(of: Int.self) { group in
            for body in bodies {
                group.addTask { (try? await Daemon.requestAsync("POST", url, body)) ?? 0 }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func fiftyAtOnceNeverOverlapAndAreEachLoggedOnce() async throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let (harness, port) = try harness()
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let monitor = try MonitorRecording()
        let statuses = await Self.postAtOnce(daemon, (0..<50).map { #"{"clip": "ding", "request_id": "burst-\#($0)"}"# })
        usleep(200_000)
        monitor.stop()
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
        let played = try harness.history().filter { $0["outcome"] as? String == "played" }
        #expect(played.count == 50)
        #expect(Set(played.compactMap { $0["request_id"] as? String }).count == 50, "each logged once")
        // ding.flac lasts 0.35 s: fifty of them in turn sound for about 17.5 s; overlapping, far less.
        let heard = monitor.heardDuration(frequency: 1318.5, floor: 0.01)
        #expect(heard > 50 * 0.35 * 0.85, "heard for \(heard) s")
    }

    /// The entry is queued while its row is still being written: copies sent at once over other
    /// connections must find it then too.
    @Test func oneRequestIDSentEightTimesAtOncePlaysOnce() async throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let (harness, port) = try harness()
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let monitor = try MonitorRecording()
        let statuses = await Self.postAtOnce(daemon, Array(repeating: #"{"clip": "ding", "request_id": "till-9/1"}"#, count: 8))
        usleep(300_000)
        monitor.stop()
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
        let rows = try harness.history()
        #expect(rows.count == 1, "\(rows)")
        #expect(rows.first?["outcome"] as? String == "played")
        // ding.flac lasts 0.35 s: once, not eight times.
        let heard = monitor.heardDuration(frequency: 1318.5, floor: 0.01)
        #expect(heard > 0.2 && heard < 0.7, "heard for \(heard) s")
    }

    @Test func aRepeatedRequestIDAcrossARestartPlaysOnce() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let (harness, port) = try harness()
        var daemon = try Daemon(harness, port: port)
        let (status, first) = try daemon.post("/v1/announcements?wait=true", #"{"clip": "ding", "request_id": "till-3/77"}"#)
        #expect(status == 200 && first["outcome"] as? String == "played")
        daemon.stop()
        daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let monitor = try MonitorRecording()
        let (again, repeated) = try daemon.post("/v1/announcements?wait=true", #"{"clip": "ding", "request_id": "till-3/77"}"#)
        usleep(500_000)
        monitor.stop()
        #expect(again == 200)
        #expect(repeated["id"] as? String == first["id"] as? String)
        #expect(monitor.soundSpan() == nil, "nothing played the second time")
        #expect(try harness.history().count == 1)
    }

    @Test func aCriticalAnnouncementInterruptsANormalOne() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let (harness, port) = try harness()
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let long = String(repeating: "This is a long announcement about the weather. ", count: 6)
        let (_, normal) = try daemon.post("/v1/announcements", "{\"text\": \"\(long)\"}")
        let normalID = try #require(normal["id"] as? String)
        try SoundServer.waitFor("the normal one to play") { try HeraldHarness.heraldIsPlaying() }
        usleep(300_000)
        let (status, critical) = try daemon.post("/v1/announcements?wait=true", #"{"text": "Smoke alarm in the kitchen", "priority": "critical"}"#)
        #expect(status == 200 && critical["outcome"] as? String == "played")
        let interrupted = try daemon.get("/v1/announcements/\(normalID)")
        #expect(interrupted["outcome"] as? String == "interrupted")
    }

    /// Found by the soak: with module-stream-restore loaded (every desktop PulseAudio loads it),
    /// the fade-out of an interrupted announcement was saved as Herald's volume, and every
    /// announcement after it played at 0%.
    @Test func afterAnInterruptedAnnouncementTheNextIsStillHeard() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let module = try SoundServer.run("pactl", ["load-module", "module-stream-restore"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        defer { _ = try? SoundServer.run("pactl", ["unload-module", module]) }
        let (harness, port) = try harness()
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let long = String(repeating: "This is a long announcement about the weather. ", count: 6)
        _ = try daemon.post("/v1/announcements", "{\"text\": \"\(long)\"}")
        try SoundServer.waitFor("the normal one to play") { try HeraldHarness.heraldIsPlaying() }
        usleep(300_000)
        let (status, critical) = try daemon.post("/v1/announcements?wait=true", #"{"text": "Smoke alarm in the kitchen", "priority": "critical"}"#)
        #expect(status == 200 && critical["outcome"] as? String == "played")
        // The interrupted one is a text: logged interrupted, not said again. The next is heard.
        let monitor = try MonitorRecording()
        let (next, row) = try daemon.post("/v1/announcements?wait=true", #"{"clip": "ding"}"#)
        usleep(300_000)
        monitor.stop()
        #expect(next == 200 && row["outcome"] as? String == "played")
        #expect(monitor.heardDuration(frequency: 1318.5, floor: 0.01) > 0.2, "the ding after the interruption was heard")
    }

    @Test func pausedPaymentsPileUpIntoOneSummaryAndStaleLowIsDropped() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let (harness, port) = try harness("priorities:\n  low:\n    max_age: 1s\n")
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        #expect(try daemon.post("/v1/queue/pause", "").0 == 200)
        var ids: [String] = []
        for amount in ["10", "20.50", "5", "30", "9.70"] {
            let (_, row) = try daemon.post("/v1/announcements", #"{"payment": {"amount": "\#(amount)"}, "priority": "high"}"#)
            ids.append(try #require(row["id"] as? String))
        }
        let (_, low) = try daemon.post("/v1/announcements", #"{"text": "A tip of the day", "priority": "low"}"#)
        usleep(1_500_000)
        #expect(try daemon.post("/v1/queue/resume", "").0 == 200)
        try SoundServer.waitFor("the queue to empty", timeout: 20) {
            let rows = try harness.history()
            return rows.count >= 7 && rows.allSatisfy { $0["outcome"] != nil }
        }
        let rows = try harness.history()
        #expect(rows.filter { $0["outcome"] as? String == "coalesced" }.count == 5)
        let summary = rows.first { ($0["body"] as? String)?.hasPrefix("five payments received") == true }
        #expect(summary?["outcome"] as? String == "played", "\(rows.map { $0["body"] ?? "" })")
        #expect((summary?["body"] as? String)?.hasSuffix("total seventy-five dollars and twenty cents") == true)
        #expect(try daemon.get("/v1/announcements/\(low["id"] as? String ?? "")")["outcome"] as? String == "dropped_stale")
    }

    /// `speech.phrases.<lang>` as a section: the summary and the test sentence are the shop's own,
    /// the payment sentence stays the table's.
    @Test func phrasesFromTheConfigAreSaidInTheSummaryAndTheTest() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let (harness, port) = try harness("""
            speech:
              language: es
              currency: MXN
              phrases:
                es:
                  summary: "{count} cobros, en total {amount}"
                  test: "Prueba de la caja."
            """)
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let monitor = try MonitorRecording()
        let (status, test) = try daemon.post("/v1/test?wait=true", "")
        monitor.stop()
        #expect(status == 200 && test["outcome"] as? String == "played" && test["body"] as? String == "Prueba de la caja.", "\(test)")
        let span = monitor.soundSpan()
        #expect((span.map { $0.end - $0.start } ?? 0) > 0.5, "the test sentence was heard: \(String(describing: span))")
        // Four waiting payments (over queue.coalesce_payments_over, 3) are said as one.
        #expect(try daemon.post("/v1/queue/pause", "").0 == 200)
        for amount in ["10", "15.30", "1", "0.70"] {
            _ = try daemon.post("/v1/announcements", #"{"payment": {"amount": "\#(amount)"}}"#)
        }
        #expect(try daemon.post("/v1/queue/resume", "").0 == 200)
        try SoundServer.waitFor("the queue to empty", timeout: 20) {
            let rows = try harness.history()
            return rows.count >= 6 && rows.allSatisfy { $0["outcome"] != nil }
        }
        let bodies = try harness.history().filter { $0["outcome"] as? String == "played" }.compactMap { $0["body"] as? String }
        #expect(bodies.contains("cuatro cobros, en total veintisiete pesos mexicanos"), "\(bodies)")
    }

    @Test func sigtermMidAnnouncementRestoresExactly() throws {
        try SoundServer.setSink(volumes: ["30%", "10%"], muted: true)
        let (harness, port) = try harness()
        let (music, musicIndex) = try harness.startMusic(volume: SafeguardedPlayTests.percent80)
        defer { kill(music.processIdentifier, SIGKILL) }
        let before = try SoundServer.readSink()
        let daemon = try Daemon(harness, port: port)
        let long = String(repeating: "The shop closes in ten minutes, please bring your purchases to the till. ", count: 4)
        _ = try daemon.post("/v1/announcements", "{\"text\": \"\(long)\"}")
        try SoundServer.waitFor("the raise") { try SoundServer.readSink().volumes.first == SafeguardedPlayTests.percent70 }
        let stopping = ContinuousClock.now
        daemon.stop()
        #expect(ContinuousClock.now - stopping < .seconds(3))
        #expect(daemon.process.terminationStatus == 0)
        #expect(try SoundServer.readSink() == before)
        #expect(try HeraldHarness.musicVolumes(musicIndex) == [SafeguardedPlayTests.percent80])
    }

    @Test func sayGoesThroughARunningDaemon() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let (harness, port) = try harness()
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let result = try harness.herald(["pay", "12.50", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let row = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        #expect(row["source"] as? String == "api", "queued by the daemon")
        #expect(row["client"] as? String == "socket", "over the daemon's local socket")
        #expect(row["outcome"] as? String == "played")
        let refused = try harness.herald(["pay", "12.555"])
        #expect(refused.status != 0 && refused.stderr.contains("'12.555' has more decimals than USD has"), "\(refused.stderr)")
    }
}
}

extension OnTheTestSink.DaemonTests {
    @Test func theCLIUsesThePrivateSocketAndPlaysItselfWhenOnlyAStaleOneIsLeft() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let runtime = NSTemporaryDirectory() + "herald-runtime-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        let environment = ["XDG_RUNTIME_DIR": runtime]
        let (harness, port) = try harness()
        let socket = "\(runtime)/herald/api-\(port).sock"
        func say() throws -> [String: Any] {
            let result = try harness.herald(["say", "Counter three is open", "--json"], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        }

        let daemon = try Daemon(harness, port: port, environment: environment)
        let mode = try FileManager.default.attributesOfItem(atPath: socket)[.posixPermissions] as? Int
        #expect(mode == 0o600, "only the daemon's user (and root) may open it")
        let viaDaemon = try say()
        #expect(viaDaemon["client"] as? String == "socket")
        #expect(viaDaemon["outcome"] as? String == "played")
        daemon.stop()
        #expect(!FileManager.default.fileExists(atPath: socket), "removed at a graceful stop")

        // kill -9 leaves the socket file: nobody answers on it, so the CLI plays by itself.
        try Daemon(harness, port: port, environment: environment).crash()
        #expect(FileManager.default.fileExists(atPath: socket))
        let local = try say()
        #expect(local["client"] as? String == "", "played in the CLI's own process")
        #expect(local["outcome"] as? String == "played")
        #expect(local["source"] as? String == "cli")
    }

    /// The lean `herald` front alone, copied where no herald-full is beside it: a `say` with the
    /// daemon's config file is said by the daemon and printed from its text answer; with no
    /// daemon, or any other command, the front must run herald-full, which is not there.
    @Test func theFrontHandsSayToTheDaemonWithoutHeraldFull() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let runtime = NSTemporaryDirectory() + "herald-front-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: runtime + "/bin", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        let front = runtime + "/bin/herald"
        try FileManager.default.copyItem(atPath: HeraldHarness.binary, toPath: front)
        let environment = ["XDG_RUNTIME_DIR": runtime, "HERALD_CONFIG": ""]
        let (harness, port) = try harness()
        let daemon = try Daemon(harness, port: port, environment: environment)
        let monitor = try MonitorRecording()
        let said = try SoundServer.run(front, ["say", "Table \"four\" is ready", "--config", harness.configPath, "--chime", "none"],
                                       environment: environment)
        monitor.stop()
        #expect(said.status == 0, "\(said.stderr)")
        #expect(said.stdout == "played Table \"four\" is ready (synth) on \(SoundServer.sink)\n", "\(said.stdout)")
        let span = try #require(monitor.soundSpan(), "the daemon said it")
        #expect(span.end - span.start > 0.5, "\(span)")
        let row = try #require(try harness.history().first)
        #expect(row["client"] as? String == "socket", "\(row)")
        let paid = try SoundServer.run(front, ["pay", "3.20", "--currency", "EUR", "--config", harness.configPath], environment: environment)
        #expect(paid.stdout.hasPrefix("played 3.20 EUR"), "\(paid.stdout) \(paid.stderr)")

        let status = try SoundServer.run(front, ["status", "--config", harness.configPath], environment: environment)
        #expect(status.status != 0 && status.stderr.contains("herald-full is missing"), "\(status.stderr)")
        let refused = try SoundServer.run(front, ["say", "hi", "--lang", "xx", "--config", harness.configPath], environment: environment)
        #expect(refused.stderr.contains("herald-full is missing"), "a refusal goes to herald-full to explain: \(refused.stderr)")
        daemon.stop()
        let alone = try SoundServer.run(front, ["say", "hi", "--config", harness.configPath], environment: environment)
        #expect(alone.stderr.contains("herald-full is missing"), "no daemon: herald-full plays it: \(alone.stderr)")
    }

    @Test func aBrokenConfigOnReloadKeepsTheOldOne() throws {
        try SoundServer.setSink(volumes: ["20%"], muted: false)
        let (harness, port) = try harness()
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let original = try String(contentsOfFile: harness.configPath, encoding: .utf8)
        func playedVolume() throws -> [Int] {
            let (status, row) = try daemon.post("/v1/announcements?wait=true", #"{"clip": "ding"}"#)
            #expect(status == 200)
            return row["volume_played"] as? [Int] ?? []
        }
        try (original + "safeguard:\n  target_volume: 250%\n").write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        usleep(500_000)
        #expect(daemon.process.isRunning)
        #expect(try playedVolume() == [45875, 45875], "still the old 70%")
        try (original + "safeguard:\n  target_volume: 60%\n").write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        usleep(500_000)
        #expect(try playedVolume() == [39322, 39322], "the new 60%")
        #expect(try SoundServer.readSink().volumes == [13107, 13107])
    }
}

extension OnTheTestSink.DaemonTests {
    @Test func theCurrentAnnouncementPausesAndResumes() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let (harness, port) = try harness()
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let monitor = try MonitorRecording()
        let text = "The number seven bus leaves in five minutes from stop B. Please have your tickets ready."
        let (_, row) = try daemon.post("/v1/announcements", "{\"text\": \"\(text)\"}")
        let id = try #require(row["id"] as? String)
        try SoundServer.waitFor("it to play") { try HeraldHarness.heraldIsPlaying() }
        usleep(600_000)
        #expect(try daemon.post("/v1/current/pause", "").1["paused"] as? Bool == true)
        usleep(300_000)
        let quietFrom = monitor.position
        usleep(1_200_000)
        let quietTo = monitor.position
        #expect(try daemon.post("/v1/current/resume", "").1["resumed"] as? Bool == true)
        try SoundServer.waitFor("it to finish", timeout: 15) { try daemon.get("/v1/announcements/\(id)")["outcome"] != nil }
        monitor.stop()
        #expect(try daemon.get("/v1/announcements/\(id)")["outcome"] as? String == "played")
        #expect(monitor.peak(from: quietFrom, to: quietTo) < 0.001, "silent while paused")
        let span = try #require(monitor.soundSpan())
        #expect(monitor.peak(from: quietTo + 0.3, to: span.end) > 0.01, "heard again after the resume")
    }
}

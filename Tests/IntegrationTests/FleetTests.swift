import Foundation
import Testing

/// The fleet console against the private Mosquitto and PostgreSQL of scripts/test.sh: real hubs
/// (`herald serve` with `mqtt:`), `herald fleet simulate` for hundreds more, two consoles sharing
/// the work, and the alarm webhook's end (DESIGN.md "Reaching hubs").
extension OnTheTestSink {
@Suite(.enabled(if: Postgres.shouldRun, "needs the private PostgreSQL and Mosquitto of scripts/test.sh"))
final class FleetTests {
    let tag = UUID().uuidString.prefix(6).lowercased()

    init() throws {
        try SoundServer.require()
        try Broker.require()
        try Postgres.require()
        try SoundServer.setSink(volumes: ["60%"], muted: false)
    }

    /// A hub beating every second: `herald serve` with `mqtt:` (on `broker`, with `login` lines
    /// under it) and `extra` config.
    func hub(_ name: String, groups: [String] = ["north"], broker: String = Broker.url, login: [String] = [],
             extra: String = "") throws -> (harness: HeraldHarness, port: Int) {
        let port = DaemonTests.port()
        let harness = try HeraldHarness(extraConfig: """
            api:
              listen: 127.0.0.1:\(port)
            mqtt:
              broker: \(broker)
            \(login.map { "  " + $0 + "\n" }.joined())  hub: \(name)
              groups: [\(groups.joined(separator: ", "))]
              keepalive: 5s
              health_interval: 1s
            \(extra)
            """)
        return (harness, port)
    }

    /// `herald fleet simulate` for `hubs` hubs named `<prefix>0000`..., until stopped.
    func simulate(hubs: Int, prefix: String, eventsPerSecond: Double = 0, seconds: Int = 0, interval: Int = 60) throws -> Process {
        try SoundServer.start(HeraldHarness.binary, ["fleet", "simulate", "--broker", Broker.url, "--hubs", "\(hubs)", "--prefix", prefix,
                                                     "--interval", "\(interval)", "--events-per-second", "\(eventsPerSecond)", "--seconds", "\(seconds)"])
    }

    @Test func fiveHundredAndThreeHubsAreListedAndAKilledOneRaisesOneAlarmSentOnceByTwoConsoles() throws {
        let database = try Postgres.freshDatabase()
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let alarms = "    offline_after: 2s\n    webhook: \(receiver.url)"
        let consoles = [try FleetConsole(name: "a-\(tag)", database: database, alarms: alarms),
                        try FleetConsole(name: "b-\(tag)", database: database, alarms: alarms)]
        let names = (1...3).map { "care-\(tag)-\($0)" }
        let hubs = try names.map { try hub($0) }
        var daemons = try hubs.map { try Daemon($0.harness, port: $0.port) }
        defer { daemons.forEach { $0.stop() } }
        let simulator = try simulate(hubs: 500, prefix: "sim-\(tag)-", eventsPerSecond: 20)
        defer { kill(simulator.processIdentifier, SIGTERM); simulator.waitUntilExit() }

        // Only this test's hubs: the broker hands a console the retained heartbeats of other tests' hubs too.
        func ours(_ console: FleetConsole) -> [[String: Any]] { console.hubs.filter { ($0["hub"] as? String ?? "").contains(tag) } }
        func ourAlarms(_ console: FleetConsole, _ query: String = "") -> [[String: Any]] {
            console.alarms(query).filter { ($0["hub"] as? String ?? "").contains(tag) }
        }
        try SoundServer.waitFor("503 hubs online on both consoles", timeout: 60) {
            consoles.allSatisfy { console in
                let listed = ours(console)
                // Online can come from the status alone; the groups come with the first heartbeat.
                return listed.count == 503 && listed.allSatisfy { $0["state"] as? String == "online" && $0["last_heartbeat"] != nil }
            }
        }
        let real = try #require(consoles[0].hubs.first { $0["hub"] as? String == names[0] })
        #expect(real["groups"] as? [String] == ["north"] && real["interval_s"] as? Int == 1, "\(real)")
        #expect(ourAlarms(consoles[0]).isEmpty, "no alarm on a healthy fleet: \(ourAlarms(consoles[0]))")

        // kill -9: the broker publishes its last will at once (the socket closes).
        let killed = ContinuousClock.now
        daemons[0].crash()
        try SoundServer.waitFor("the offline alarm", timeout: 20) {
            ourAlarms(consoles[1], "?state=open").contains { $0["hub"] as? String == names[0] && $0["kind"] as? String == "offline" }
        }
        let raised = ContinuousClock.now - killed
        // offline_after (2 s) plus a heartbeat (1 s) plus one sweep (2 s), with a second to spare.
        #expect(raised < .seconds(6), "raised \(raised) after the kill")
        var notices: [[String: Any]] { receiver.events.filter { ($0["hub"] as? String ?? "").contains(tag) } }
        try SoundServer.waitFor("the webhook", timeout: 10) { notices.contains { $0["event"] as? String == "alarm_opened" } }
        // Both consoles sweep and send: give a second sending every chance to happen.
        Thread.sleep(forTimeInterval: 5)
        let opened = notices.filter { $0["event"] as? String == "alarm_opened" }
        #expect(opened.count == 1, "\(receiver.events)")
        #expect(opened.first?["hub"] as? String == names[0] && opened.first?["kind"] as? String == "offline")
        #expect(ourAlarms(consoles[0], "?state=open").count == 1 && ourAlarms(consoles[1], "?state=open").count == 1)
        #expect(consoles[0].hubs.first { $0["hub"] as? String == names[0] }?["state"] as? String == "offline")

        // Back: the alarm closes, and the webhook hears of it once.
        daemons[0] = try Daemon(hubs[0].harness, port: hubs[0].port)
        try SoundServer.waitFor("the alarm to close", timeout: 20) { ourAlarms(consoles[0], "?state=open").isEmpty }
        try SoundServer.waitFor("the closing notice", timeout: 10) { notices.contains { $0["event"] as? String == "alarm_closed" } }
        Thread.sleep(forTimeInterval: 3)
        let closed = notices.filter { $0["event"] as? String == "alarm_closed" }
        #expect(closed.count == 1 && closed.first?["alarm"] as? Int == opened.first?["alarm"] as? Int, "\(notices)")
        #expect(notices.count == 2, "one opening, one closing: \(notices)")
        #expect(try Postgres.query(database, "SELECT count(*) FROM alarms WHERE hub LIKE '%\(tag)%'") == "1")

        // The page, its chart of the simulator's events, and the fleet's metrics.
        let (status, page, _) = Daemon.rawRequest("GET", consoles[0].base + "/")
        #expect(status == 200 && String(decoding: page ?? Data(), as: UTF8.self).contains("Herald fleet"))
        let chart = try #require(try consoles[1].get("/v1/chart?group=group-1") as? [String: Any])
        let played = (chart["hours"] as? [[String: Any]] ?? []).filter { $0["outcome"] as? String == "played" }.compactMap { $0["count"] as? Int }
        #expect(played.reduce(0, +) > 0, "\(chart)")
        let metrics = String(decoding: Daemon.rawRequest("GET", consoles[1].base + "/metrics").1 ?? Data(), as: UTF8.self)
        let online = metrics.split(separator: "\n").first { $0.hasPrefix(#"herald_fleet_hubs{state="online"} "#) }
        #expect(online.flatMap { Double($0.split(separator: " ").last ?? "") }.map { $0 >= 503 } == true, "\(metrics)")
        #expect(!consoles.contains { $0.log.contains(" error ") }, "\(consoles.map(\.log))")
    }

    /// As the README runs it: TLS, users, and Config/mosquitto-acl.example's ACL. The console,
    /// logged in as `fleet-console`, hears a hub that logs in as itself (its heartbeat allowed),
    /// and its test announcement reaches the hub and is said.
    @Test func throughTLSAndTheExampleACLTheConsoleHearsAHubAndItsTestAnnouncementIsSaid() throws {
        let folder = NSTemporaryDirectory() + "herald-fleet-acl-\(tag)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let authority = try TestCertificates.authority("ca", in: folder)
        let certificate = try TestCertificates.server("broker", signedBy: authority, in: folder)
        let name = "care-\(tag)-acl"
        let broker = try MQTTPrivateBroker.withExampleACL(users: ["fleet-console", name], aclLines: "",
                                                          tls: "certfile \(certificate.certificate)\nkeyfile \(certificate.key)", in: folder)
        defer { broker.stop() }
        let url = "mqtts://127.0.0.1:\(broker.port)"
        let hub = try hub(name, broker: url, login: ["username: \(name)", "password: secret-\(name)", "ca: \(authority.certificate)"])
        let daemon = try Daemon(hub.harness, port: hub.port)
        defer { daemon.stop() }
        let console = try FleetConsole(name: "t-\(tag)", database: try Postgres.freshDatabase(),
                                       broker: ["broker: \(url)", "username: fleet-console", "password: secret-fleet-console",
                                                "ca: \(authority.certificate)"])
        try SoundServer.waitFor("the hub listed online with its heartbeat", timeout: 20) {
            console.hubs.contains { $0["hub"] as? String == name && $0["state"] as? String == "online" && $0["last_heartbeat"] != nil }
        }
        let (code, body) = try Daemon.request("POST", console.base + "/v1/announce", #"{"hub": "\#(name)", "text": "A test from the console."}"#)
        #expect(code == 202, "\(String(describing: body))")
        let requestID = try #require((body as? [String: Any])?["request_id"] as? String)
        try SoundServer.waitFor("the hub to say it", timeout: 20) {
            try hub.harness.history().contains { $0["request_id"] as? String == requestID && $0["outcome"] as? String == "played" }
        }
        // Its played event came back to the console through the ACL too.
        try SoundServer.waitFor("the console to hold the played event", timeout: 10) {
            ((try? console.get("/v1/hubs/\(name)") as? [String: Any])?["events"] as? [[String: Any]] ?? []).contains {
                $0["request_id"] as? String == requestID && $0["outcome"] as? String == "played"
            }
        }
        let link = try daemon.get("/v1/status")["mqtt"] as? [String: Any] ?? [:]
        #expect(link["last_error"] == nil, "the hub's own publishes (status, health, events) were all allowed: \(link)")
        #expect(!broker.log.contains("Denied"), "the broker denied nothing: \(broker.log.split(separator: "\n").filter { $0.contains("Denied") })")
    }

    /// The page in headless Chromium (Tests/browser/fleet_page.py): a real hub among 200 simulated
    /// and one offline, filtered by group, state and name; the chart drawn; the offline alarm
    /// acknowledged; a test announcement sent to the real hub, heard there, and its played event
    /// shown in the hub's panel. The screenshot is kept in .build/test-artifacts/fleet-page.png.
    @Test func thePageInABrowserFiltersAcknowledgesAndSendsATestAnnouncement() throws {
        let database = try Postgres.freshDatabase()
        let console = try FleetConsole(name: "p-\(tag)", database: database, alarms: "    offline_after: 1s")
        let real = "care-\(tag)-p", offline = "gone-\(tag)"
        let hub = try hub(real, groups: ["north-\(tag)"])
        let daemon = try Daemon(hub.harness, port: hub.port)
        defer { daemon.stop() }
        let simulator = try simulate(hubs: 200, prefix: "sim-\(tag)-", eventsPerSecond: 20)
        defer { kill(simulator.processIdentifier, SIGTERM); simulator.waitUntilExit() }
        // A hub that said goodbye: offline, and its alarm after offline_after. Retained, as a hub
        // publishes it (and so there even if the subscription is a moment late); cleared after.
        try Broker.publish("herald/\(offline)/status", #"{"state":"offline","version":"1"}"#, retain: true)
        defer {
            daemon.stop()  // its goodbye first, then the clears
            for topic in ["herald/\(offline)/status", "herald/\(real)/status", "herald/\(real)/health"] { try? Broker.clearRetained(topic) }
        }
        try FileManager.default.createDirectory(atPath: AdminPageTests.artifacts, withIntermediateDirectories: true)
        let screenshot = AdminPageTests.artifacts + "/fleet-page.png"
        try? FileManager.default.removeItem(atPath: screenshot)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../browser/fleet_page.py").standardized.path
        let monitor = try MonitorRecording()
        let run = try SoundServer.run("/usr/bin/python3", [script, console.base, real, "north-\(tag)", offline, screenshot])
        monitor.stop()
        print(run.stdout, run.stderr)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        let request = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("request_id ") }?.dropFirst("request_id ".count))
        #expect(try hub.harness.history().contains { $0["request_id"] as? String == String(request) && $0["outcome"] as? String == "played" })
        #expect(monitor.soundSpan() != nil, "the test announcement was heard")
        #expect(try Postgres.query(database, "SELECT count(*) FROM alarms WHERE hub = '\(offline)' AND acknowledged_at IS NOT NULL") == "1")
        #expect(FileManager.default.fileExists(atPath: screenshot), "the screenshot artifact")
    }

    /// A console started after a hub stopped gets the hub's retained goodbye and its last retained
    /// heartbeat: the hub is offline, and never shown online on the strength of that old heartbeat.
    @Test func aConsoleStartedAfterAHubStoppedListsItOffline() throws {
        let name = "care-\(tag)-late"
        let hub = try hub(name)
        let daemon = try Daemon(hub.harness, port: hub.port)
        try SoundServer.waitFor("the hub's retained heartbeat", timeout: 15) {
            (try? Broker.retained("herald/\(name)/health"))?["hub"] as? String == name
        }
        daemon.stop()
        let console = try FleetConsole(name: "l-\(tag)", database: try Postgres.freshDatabase())
        var states: [String] = []
        try SoundServer.waitFor("the hub listed", timeout: 15) {
            console.hubs.first { $0["hub"] as? String == name }?["last_heartbeat"] != nil
        }
        for _ in 0..<10 {
            states.append(console.hubs.first { $0["hub"] as? String == name }?["state"] as? String ?? "unlisted")
            Thread.sleep(forTimeInterval: 0.2)
        }
        #expect(states.allSatisfy { $0 == "offline" }, "\(states)")
    }

    @Test func aHubsMissedReminderRaisesItsAlarm() throws {
        let database = try Postgres.freshDatabase()
        let console = try FleetConsole(name: "m-\(tag)", database: database)
        let name = "care-\(tag)-m"
        let hub = try hub(name, extra: "reminders:\n  grace: 1s\n")
        var daemon = try Daemon(hub.harness, port: hub.port)
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 2).rounded(.up))
        let format = DateFormatter()
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        let (code, _) = try daemon.post("/v1/reminders", #"{"text": "Time for the evening tablets", "time_zone": "UTC", "schedule": {"at": "\#(format.string(from: due))"}}"#)
        #expect(code == 201)
        // Off over its time and past the grace: logged missed at the next start.
        daemon.stop()
        Thread.sleep(until: due.addingTimeInterval(3))
        daemon = try Daemon(hub.harness, port: hub.port)
        defer { daemon.stop() }
        try SoundServer.waitFor("the missed reminder's alarm", timeout: 20) {
            console.alarms("?state=open").contains { $0["hub"] as? String == name && $0["kind"] as? String == "reminder_missed" }
        }
        let listed = try #require(console.hubs.first { $0["hub"] as? String == name })
        #expect(listed["missed_24h"] as? Int == 1, "\(listed)")
    }

    /// How many events a finished `herald fleet simulate` says it published.
    func published(_ simulator: Process) throws -> Int {
        simulator.waitUntilExit()
        let said = String(decoding: (simulator.standardOutput as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        return try #require(said.split(separator: "\n").last.flatMap { Int($0.split(separator: " ")[1]) }, "\(said)")
    }

    /// PostgreSQL stopped (immediate shutdown) while the console is inside a batch's transaction,
    /// and started again: every event published before, during and after is written, and the
    /// console still answers and stops on SIGTERM. (Once the ROLLBACK sent to the closing
    /// connection never ended, and the ingest with it: FleetStore.transaction.)
    @Test func eventsPublishedWhileTheDatabaseIsDownAreAllKeptWhenItIsBack() throws {
        let database = try Postgres.freshDatabase()
        let console = try FleetConsole(name: "d-\(tag)", database: database)
        // Events all along; and a lock held on the hubs so the next batch waits inside its
        // transaction (after BEGIN) when the server goes.
        let steady = try simulate(hubs: 20, prefix: "all-\(tag)-", eventsPerSecond: 100, seconds: 20)
        try SoundServer.waitFor("the first events written", timeout: 10) {
            (try? Postgres.query(database, "SELECT count(*) FROM events")).flatMap(Int.init) ?? 0 > 0
        }
        let blocker = try SoundServer.start(Postgres.bin + "/psql", [database, "-c", "BEGIN; LOCK TABLE hubs IN SHARE MODE; SELECT pg_sleep(60)"])
        defer { blocker.terminate() }
        try SoundServer.waitFor("a batch waiting on the lock", timeout: 10) {
            (try? Postgres.query(database, "SELECT count(*) FROM pg_locks WHERE relation = 'hubs'::regclass AND NOT granted")) != "0"
        }
        try Postgres.stop()
        var restarted = false
        defer { if !restarted { try? Postgres.start() } }
        try SoundServer.waitFor("the console to say the database is down", timeout: 20) {
            (try? console.get("/v1/health") as? [String: Any])?["database"] as? String == "not answering"
        }
        let down = try published(try simulate(hubs: 20, prefix: "down-\(tag)-", eventsPerSecond: 100, seconds: 4))
        #expect(down >= 300)
        try Postgres.start()
        restarted = true
        try SoundServer.waitFor("every event of the outage written", timeout: 30) {
            (try? Postgres.query(database, "SELECT count(DISTINCT announcement) FROM events WHERE hub LIKE 'down-\(tag)-%'")) == "\(down)"
        }
        let all = try published(steady)
        try SoundServer.waitFor("every event of the steady hubs written", timeout: 30) {
            (try? Postgres.query(database, "SELECT count(DISTINCT announcement) FROM events WHERE hub LIKE 'all-\(tag)-%'")) == "\(all)"
        }
        #expect(console.log.contains("could not write"), "the batch caught by the stop failed and was written again: \(console.log.suffix(3000))")
        #expect(console.hubs.filter { ($0["hub"] as? String ?? "").hasPrefix("down-\(tag)-") }.count == 20)
        let (code, _) = try Daemon.request("GET", console.base + "/v1/hubs", timeout: 5)
        #expect(code == 200, "it still answers")
        // FleetConsole.stop records an issue if SIGTERM does not end it within 10 s.
        console.stop()
        #expect(!console.process.isRunning)
    }

    @Test func messagesOfAnotherShapeAreRefusedLoggedAndCounted() throws {
        let database = try Postgres.freshDatabase()
        let console = try FleetConsole(name: "x-\(tag)", database: database)
        let name = "shop-\(tag)"
        try Broker.publish("herald/\(name)/health", "not json")
        try Broker.publish("herald/\(name)/status", #"{"state":"asleep"}"#)
        try Broker.publish("herald/\(name)/events", #"{"hub":"someone-else","outcome":"played"}"#)
        try Broker.publish("herald/\(name)/status", #"{"state":"online","version":"1"}"#)
        try SoundServer.waitFor("the good status", timeout: 10) { console.hubs.contains { $0["hub"] as? String == name } }
        let metrics = String(decoding: Daemon.rawRequest("GET", console.base + "/metrics").1 ?? Data(), as: UTF8.self)
        let refused = metrics.split(separator: "\n").first { $0.hasPrefix("herald_fleet_messages_refused_total ") }
        #expect(refused.flatMap { Double($0.split(separator: " ").last ?? "") }.map { $0 >= 3 } == true, "\(metrics)")
        #expect(console.log.contains("herald/\(name)/health: the payload is not JSON"), "\(console.log)")
        #expect(console.log.contains("names hub 'someone-else', the topic '\(name)'"))
        // The API refuses a request a browser on another site sends, and a test announcement without a target.
        let (origin, _, _) = Daemon.rawRequest("POST", console.base + "/v1/announce", #"{"hub":"x","text":"hi"}"#,
                                               headers: ["Content-Type": "application/json", "Origin": "http://evil.example"])
        #expect(origin == 403)
        let (plain, _, _) = Daemon.rawRequest("POST", console.base + "/v1/announce", #"{"hub":"x","text":"hi"}"#, headers: ["Content-Type": "text/plain"])
        #expect(plain == 415)
        let (code, body) = try Daemon.request("POST", console.base + "/v1/announce", #"{"text":"hi"}"#)
        #expect(code == 400 && (body as? [String: Any])?["field"] as? String == "hub", "\(String(describing: body))")
    }
}
}

import Foundation
import Testing

/// A caregiver's calendar on a real CalDAV server (the private Radicale of scripts/test.sh):
/// events put into it over CalDAV are said by a real `herald serve` at their alarms, heard on the
/// null sink's monitor; an event moved after a read is said at its new time only, a deleted one
/// never, and one whose alarm came while the daemon was stopped is said late.
extension OnTheTestSink {
@Suite(.enabled(if: Radicale.shouldRun, "needs the private Radicale of scripts/test.sh"))
final class CalendarTests {
    init() throws {
        try SoundServer.require()
        try Radicale.require()
        try SoundServer.setSink(volumes: ["60%"], muted: false)
    }

    /// `date` as iCalendar's UTC form, 20261128T190000Z.
    static func stamp(_ date: Date) -> String {
        let format = DateFormatter()
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return format.string(from: date)
    }

    /// An event starting at `start` with an alarm a minute before it.
    static func event(_ uid: String, start: Date, summary: String) -> String {
        """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Herald tests//EN\r
        BEGIN:VEVENT\r
        UID:\(uid)\r
        DTSTAMP:\(stamp(Date()))\r
        DTSTART:\(stamp(start))\r
        DURATION:PT30M\r
        SUMMARY:\(summary)\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        DESCRIPTION:\(summary)\r
        TRIGGER:-PT1M\r
        END:VALARM\r
        END:VEVENT\r
        END:VCALENDAR\r

        """
    }

    /// The stretches of sound in `monitor` (gaps of a second or more split them), in seconds.
    static func stretches(_ monitor: MonitorRecording) -> [Double] {
        let window = 1024.0 / 48_000
        var starts: [Double] = [], lastLoud = -10.0
        for (index, level) in monitor.rmsLevels().enumerated() where level > 0.003 {
            let at = Double(index) * window
            if at - lastLoud > 1 { starts.append(at) }
            lastLoud = at
        }
        return starts
    }

    @Test func anEventIsHeardAtItsAlarmAMovedOneAtItsNewTimeOnlyAndADeletedOneNever() throws {
        let calendar = try Radicale.makeCalendar()
        let origin = Date().addingTimeInterval(5)
        // Alarms (a minute before each start) at +25 s, +45 s and +60 s from `origin`.
        try Radicale.put(calendar, "said", Self.event("said", start: origin.addingTimeInterval(85), summary: "Cardiology"))
        try Radicale.put(calendar, "moved", Self.event("moved", start: origin.addingTimeInterval(105), summary: "Physiotherapy"))
        try Radicale.put(calendar, "deleted", Self.event("deleted", start: origin.addingTimeInterval(120), summary: "Nurse"))
        let (harness, port) = try HeraldHarness.listening(Radicale.config(calendar, extra: "    poll: 15s\n"))
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let monitor = try MonitorRecording()
        let mark = (wall: Date(), position: monitor.position)
        try SoundServer.waitFor("the first read planned three firings", timeout: 15) {
            ((try daemon.get("/v1/calendars")["calendars"] as? [[String: Any]])?.first?["next"] as? [Any])?.count == 3
        }
        // After that read: one moved a minute later, one deleted; the next read (15 s) sees both.
        try Radicale.put(calendar, "moved", Self.event("moved", start: origin.addingTimeInterval(165), summary: "Physiotherapy"))
        try Radicale.delete(calendar, "deleted")
        Thread.sleep(until: origin.addingTimeInterval(110))
        monitor.stop()
        // From 10 s on: nothing is due before 25 s, and a start may say something of its own.
        let heard = Self.stretches(monitor).map { mark.wall.addingTimeInterval($0 - mark.position).timeIntervalSince(origin) }.filter { $0 > 10 }
        print("calendar: heard at \(heard.map { String(format: "%.1f", $0) }) s; alarms at 25 and 105 (moved from 45), 60 deleted")
        #expect(heard.count == 2, "the first alarm and the moved one, no other: \(heard)")
        #expect(heard.contains { abs($0 - 25) < 2 }, "the first event within 2 s of its alarm: \(heard)")
        #expect(heard.contains { abs($0 - 105) < 2 }, "the moved event at its new time: \(heard)")
        let said = try harness.history().filter { ($0["reminder_id"] as? String ?? "").hasPrefix("calendar:family:") }
        #expect(said.count == 2 && said.allSatisfy { $0["outcome"] as? String == "played" }, "\(said)")
    }

    @Test func aWrongPasswordIsShownByTheAPIAndTheCLIAndPlansNothing() throws {
        let calendar = try Radicale.makeCalendar()
        try Radicale.put(calendar, "soon", Self.event("soon", start: Date().addingTimeInterval(600), summary: "Dentist"))
        let (harness, port) = try HeraldHarness.listening(Radicale.config(calendar, password: "not-the-password"))
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        var shown: [String: Any] = [:]
        try SoundServer.waitFor("the calendar's problem shown", timeout: 10) {
            shown = (try daemon.get("/v1/calendars")["calendars"] as? [[String: Any]])?.first ?? [:]
            return shown["problem"] != nil
        }
        #expect((shown["problem"] as? String)?.contains("wrong username or password") == true, "\(shown)")
        #expect((shown["next"] as? [Any])?.isEmpty == true && (shown["last_read"] == nil || shown["last_read"] is NSNull), "\(shown)")
        let listed = try harness.herald(["calendar", "list"])
        #expect(listed.stdout.contains("PROBLEM:") && listed.stdout.contains("wrong username or password"), "\(listed.stdout)")
    }

    @Test func anAlarmThatCameWhileTheDaemonWasStoppedIsSaidLateOnce() throws {
        let calendar = try Radicale.makeCalendar()
        let alarm = Date().addingTimeInterval(12)
        try Radicale.put(calendar, "late", Self.event("late", start: alarm.addingTimeInterval(60), summary: "Dentist"))
        let (harness, port) = try HeraldHarness.listening(Radicale.config(calendar))
        var daemon = try Daemon(harness, port: port)
        try SoundServer.waitFor("the firing planned", timeout: 10) {
            ((try daemon.get("/v1/calendars")["calendars"] as? [[String: Any]])?.first?["next"] as? [Any])?.count == 1
        }
        daemon.stop()
        // Off over the alarm, back more than the 5 s a timer may lag: within the grace, late.
        Thread.sleep(until: alarm.addingTimeInterval(6))
        daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        func rows() throws -> [[String: Any]] {
            try harness.history().filter { ($0["reminder_id"] as? String ?? "").hasPrefix("calendar:family:") }
        }
        try SoundServer.waitFor("the late firing", timeout: 15) { try rows().first?["outcome"] as? String == "late" }
        // Another read (a restart reads at once) must not say it again.
        sleep(3)
        let said = try rows()
        #expect(said.count == 1, "said once: \(said)")
    }
}
}

/// The private Radicale of scripts/test.sh (`HERALD_TEST_RADICALE_URL`), driven over CalDAV with curl.
enum Radicale {
    static var url: String? { ProcessInfo.processInfo.environment["HERALD_TEST_RADICALE_URL"] }
    static var shouldRun: Bool { url != nil || ProcessInfo.processInfo.environment["CI"] == "true" }

    static func require() throws {
        guard url != nil else {
            throw SoundServer.CommandFailed(description: "no private Radicale: run the tests with scripts/test.sh (it exports HERALD_TEST_RADICALE_URL)")
        }
    }

    static var user: String { ProcessInfo.processInfo.environment["HERALD_TEST_RADICALE_USER"] ?? "herald" }
    static var password: String { ProcessInfo.processInfo.environment["HERALD_TEST_RADICALE_PASSWORD"] ?? "" }

    /// `calendars:` with one calendar, `family`, on `collection` with the test user's password.
    static func config(_ collection: String, password: String = password, extra: String = "") -> String {
        "calendars:\n  family:\n    caldav: \(collection)\n    username: \(user)\n    password: \"\(password)\"\n\(extra)"
    }

    /// A new calendar collection (MKCALENDAR) of the test user: its URL, ending in `/`.
    static func makeCalendar() throws -> String {
        let collection = "\(url ?? "")/\(user)/\(UUID().uuidString.lowercased())/"
        try curl(["-X", "MKCALENDAR", collection], expect: 201)
        return collection
    }

    static func put(_ calendar: String, _ name: String, _ body: String) throws {
        let file = NSTemporaryDirectory() + "herald-event-\(UUID().uuidString).ics"
        try body.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        try curl(["-X", "PUT", "-H", "Content-Type: text/calendar; charset=utf-8", "--data-binary", "@" + file, calendar + name + ".ics"],
                 expect: [201, 204])
    }

    static func delete(_ calendar: String, _ name: String) throws {
        try curl(["-X", "DELETE", calendar + name + ".ics"], expect: [200, 204])
    }

    private static func curl(_ arguments: [String], expect codes: Set<Int>) throws {
        let result = try SoundServer.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", "-u", "\(user):\(password)"] + arguments)
        guard let code = Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), codes.contains(code) else {
            throw SoundServer.CommandFailed(description: "curl \(arguments.joined(separator: " ")): \(result.stdout) \(result.stderr)")
        }
    }

    private static func curl(_ arguments: [String], expect code: Int) throws { try curl(arguments, expect: [code]) }
}

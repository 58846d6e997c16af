import Foundation
import Testing

/// The admin page in a real browser (headless Chromium driven by Selenium, Tests/browser/
/// admin_page.py) against a real daemon on the test sink: no console errors, the test button
/// heard and logged without a reload, a mute made with pactl shown within a second, a reminder
/// acknowledged from the page and not said again. The screenshot is kept in
/// .build/test-artifacts/admin-page.png.
extension OnTheTestSink {
@Suite final class AdminPageTests {
    init() throws {
        try SoundServer.require()
    }

    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../.build/test-artifacts").standardized.path
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../browser/admin_page.py").standardized.path

    @Test func thePageIsLiveHeardAndAcknowledgesAReminder() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let port = DaemonTests.port()
        let harness = try HeraldHarness(extraConfig: "api:\n  listen: 127.0.0.1:\(port)\n")
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        // Said in 15 s (after the page's other checks) and every 3 s after until acknowledged.
        let due = ReminderTests.local(15)
        let (status, created) = try daemon.post("/v1/reminders", ReminderTests.oneShot(due.text, extra: #", "repeat": {"every": "3s", "times": 10}"#))
        #expect(status == 201, "\(created)")
        let id = try #require(created["id"] as? String)
        try FileManager.default.createDirectory(atPath: Self.artifacts, withIntermediateDirectories: true)
        let screenshot = Self.artifacts + "/admin-page.png"
        try? FileManager.default.removeItem(atPath: screenshot)

        let monitor = try MonitorRecording()
        let start = (wall: Date(), position: monitor.position)
        let run = try SoundServer.run("/usr/bin/python3", [Self.script, daemon.base, SoundServer.sink, id, screenshot])
        print(run.stdout, run.stderr)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        let acked = try #require(lines.first { $0.hasPrefix("acked_at ") }.flatMap { Double($0.dropFirst("acked_at ".count)) },
                                 "the page acknowledged the reminder")
        let pressed = try #require(lines.first { $0.hasPrefix("test_pressed_at ") }.flatMap { Double($0.dropFirst("test_pressed_at ".count)) })
        // Two more periods: a repeat would have been said by then.
        sleep(7)
        monitor.stop()

        // The test sentence was heard on the sink after the button was pressed, before the reminder's ding.
        let pressedAt = start.position + (pressed - start.wall.timeIntervalSince1970)
        let dueAt = start.position + due.date.timeIntervalSince(start.wall)
        #expect(pressedAt + 1 < dueAt, "the browser took too long to start for this test's timing")
        #expect(monitor.peak(from: pressedAt, to: min(pressedAt + 6, dueAt - 0.2)) > 0.01, "the test announcement on the monitor")
        let rows = try harness.history().filter { $0["reminder_id"] as? String == id }
        let formatter = ISO8601DateFormatter()
        let after = rows.compactMap { ($0["queued_at"] as? String).flatMap(formatter.date) }
            .filter { $0.timeIntervalSince1970 > acked + 1 }
        #expect(!rows.isEmpty, "the reminder was said")
        #expect(after.isEmpty, "no repeat queued after the acknowledgement: \(after)")
        #expect(FileManager.default.fileExists(atPath: screenshot), "the screenshot artifact")
    }

    @Test func anOpenEventStreamDoesNotHoldUpAStop() throws {
        let port = DaemonTests.port()
        let harness = try HeraldHarness(extraConfig: "api:\n  listen: 127.0.0.1:\(port)\n")
        let daemon = try Daemon(harness, port: port)
        let output = harness.folder + "/events.txt"
        FileManager.default.createFile(atPath: output, contents: nil)
        let listener = try SoundServer.start("curl", ["-sN", daemon.base + "/v1/events"], output: FileHandle(forWritingAtPath: output)!)
        defer { listener.terminate() }
        try SoundServer.waitFor("the first status event") {
            (try String(contentsOfFile: output, encoding: .utf8)).contains("event: status\ndata: {")
        }
        let took = daemon.stop()
        #expect(took < .seconds(3), "SIGTERM took \(took) with a browser listening")
        listener.waitUntilExit()
        #expect(listener.terminationStatus == 0, "the stream was ended cleanly by the daemon")
    }
}
}

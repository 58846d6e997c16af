import Foundation
import Testing

/// A web page open in the box's browser tries to make the daemon speak, pause or tell (headless
/// Chromium, Tests/browser/attack_page.py): a no-cors fetch, a text/plain form, beacons, an
/// iframe of the admin page, and the same script through a DNS-rebound name. Nothing is heard
/// on the sink, nothing is queued or stored, the queue is not paused, no reminder is made.
/// (The page from its own origin still works: AdminPageTests.)
extension OnTheTestSink {
@Suite final class BrowserAttackTests {
    init() throws {
        try SoundServer.require()
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../browser/attack_page.py").standardized.path

    @Test func aPageOnAnotherOriginOrAReboundNameCannotMakeItSpeakReadOrPause() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let (harness, port) = try HeraldHarness.listening()
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let monitor = try MonitorRecording()
        let run = try SoundServer.run("/usr/bin/python3", [Self.script, daemon.base])
        print(run.stdout, run.stderr)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("ok every request through the rebound name was refused 421"))
        sleep(1)
        monitor.stop()
        #expect(monitor.peak(from: 0, to: monitor.duration) < 0.001, "nothing was heard on the sink")
        #expect(try harness.history().isEmpty, "nothing was queued or logged")
        let status = try daemon.get("/v1/status")
        let queue = status["daemon"] as? [String: Any]
        #expect(queue?["paused"] as? Bool == false, "the queue was not paused: \(queue ?? [:])")
        let (_, reminders) = try Daemon.request("GET", daemon.base + "/v1/reminders")
        #expect((reminders as? [Any])?.isEmpty == true, "no reminder was made: \(reminders ?? "none")")
        let (_, metrics, _) = Daemon.rawRequest("GET", daemon.base + "/metrics")
        let text = metrics.map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(text.contains(#"herald_refusals_total{reason="origin",via="http"}"#), "the refusals were counted")
    }
}
}

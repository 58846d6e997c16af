import Foundation
import Testing

/// Reminders said by a real `herald serve` on the private PulseAudio server, heard on the
/// null sink's monitor: on time, again until acknowledged, late or missed over a stop, deferred
/// by quiet hours; the caregiver's webhook is a real HTTP server on loopback.
extension OnTheTestSink {
@Suite final class ReminderTests {
    /// ding.flac's tone.
    static let ding = 1318.5

    init() throws {
        try SoundServer.require()
    }

    func harness(_ extra: String = "") throws -> (HeraldHarness, Int) { try HeraldHarness.listening(extra) }

    /// `2026-11-22T21:05:07` in UTC, `seconds` from now (whole seconds, rounded up).
    static func local(_ seconds: Double, from now: Date = Date()) -> (text: String, date: Date) {
        let due = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + seconds).rounded(.up))
        let format = DateFormatter()
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return (format.string(from: due), due)
    }

    static func oneShot(_ at: String, extra: String = "", clip: String = "ding") -> String {
        #"{"clip": "\#(clip)", "time_zone": "UTC", "schedule": {"at": "\#(at)"}\#(extra)}"#
    }

    func rows(_ harness: HeraldHarness, reminder id: String) throws -> [[String: Any]] {
        try harness.history().filter { $0["reminder_id"] as? String == id }
    }

    @Test func aReminderIsHeardAtItsDueTime() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let (harness, port) = try harness()
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let monitor = try MonitorRecording()
        let due = Self.local(3)
        let (status, created) = try daemon.post("/v1/reminders", Self.oneShot(due.text))
        #expect(status == 201, "\(created)")
        let id = try #require(created["id"] as? String)
        #expect(created["next_due"] as? String == ISO8601DateFormatter().string(from: due.date))
        // Where the recording stood at a known wall-clock time: the monitor's clock from then on.
        let mark = (wall: Date(), position: monitor.position)
        try SoundServer.waitFor("the reminder to be logged", timeout: 10) {
            try rows(harness, reminder: id).first?["outcome"] as? String == "played"
        }
        usleep(300_000)
        monitor.stop()
        let heard = try #require(monitor.firstHeard(frequency: Self.ding), "the reminder was heard")
        let heardAt = mark.wall.addingTimeInterval(heard - mark.position)
        let offset = heardAt.timeIntervalSince(due.date)
        print("reminder heard \(Int(offset * 1000)) ms after its due time")
        #expect(abs(offset) < 0.5, "heard \(offset) s from its due time")
        let row = try #require(try rows(harness, reminder: id).first)
        #expect(row["source"] as? String == "reminder")
    }

    @Test func aRepeatIsHeardAgainAndStopsAfterAnAcknowledgement() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let (harness, port) = try harness()
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let due = Self.local(1)
        let (_, created) = try daemon.post("/v1/reminders", Self.oneShot(due.text, extra: #", "repeat": {"every": "2s", "times": 5}"#))
        let id = try #require(created["id"] as? String)
        try SoundServer.waitFor("a first repeat", timeout: 10) {
            try rows(harness, reminder: id).filter { $0["outcome"] as? String == "played" }.count >= 2
        }
        let waiting = try daemon.get("/v1/status")["reminders"] as? [String: Any]
        #expect((waiting?["waiting_for_ack"] as? [[String: Any]])?.first?["id"] as? String == id)
        let (acked, ack) = try daemon.post("/v1/reminders/\(id)/ack", #"{"by": "Anna"}"#)
        #expect(acked == 200 && ack["acked_by"] as? String == "Anna", "\(ack)")
        usleep(500_000)  // a repeat already in the queue may still finish
        let monitor = try MonitorRecording()
        let count = try rows(harness, reminder: id).count
        sleep(5)
        monitor.stop()
        #expect(monitor.firstHeard(frequency: Self.ding) == nil, "not heard again after the acknowledgement")
        #expect(try rows(harness, reminder: id).count == count)
        let (again, error) = try daemon.post("/v1/reminders/\(id)/ack", "")
        #expect(again == 400 && (error["error"] as? [String: Any])?["field"] as? String == "id")
    }

    @Test func aDaemonStoppedOverTheDueTimeSaysItLateOnce() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let (harness, port) = try harness("reminders:\n  grace: 1m\n")
        var daemon = try Daemon(harness, port: port)
        let due = Self.local(2)
        let (_, created) = try daemon.post("/v1/reminders", Self.oneShot(due.text))
        let id = try #require(created["id"] as? String)
        daemon.stop()
        // Off over the due time, back more than the 5 s a timer may lag: within the grace, late.
        Thread.sleep(until: due.date.addingTimeInterval(6))
        let monitor = try MonitorRecording()
        daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        try SoundServer.waitFor("the late reminder", timeout: 10) { try rows(harness, reminder: id).first?["outcome"] as? String == "late" }
        sleep(1)
        monitor.stop()
        let heard = monitor.heardDuration(frequency: Self.ding)
        #expect(heard > 0.15 && heard < 0.6, "one ding (0.35 s), heard \(heard) s")
        #expect(try rows(harness, reminder: id).count == 1, "said once")
    }

    @Test func beyondTheGraceItIsMissedAndTheCaregiverIsTold() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let receiver = try WebhookReceiver(failFirst: 1)
        defer { receiver.stop() }
        let (harness, port) = try harness("reminders:\n  grace: 1s\n  escalate: \(receiver.url)\n")
        var daemon = try Daemon(harness, port: port)
        let due = Self.local(2)
        let (_, created) = try daemon.post("/v1/reminders", #"{"text": "Time to take your blood pressure medication", "time_zone": "UTC", "schedule": {"at": "\#(due.text)"}}"#)
        let id = try #require(created["id"] as? String)
        daemon.stop()
        Thread.sleep(until: due.date.addingTimeInterval(3))
        let monitor = try MonitorRecording()
        daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        // The first POST is answered 503; the retry (after 1 s) is delivered.
        try SoundServer.waitFor("the webhook", timeout: 10) { !receiver.events.isEmpty }
        monitor.stop()
        #expect(receiver.requests == 2, "retried after a failure")
        let event = try #require(receiver.events.first)
        #expect(event["reminder"] as? String == id && event["outcome"] as? String == "missed", "\(event)")
        #expect(event["text"] as? String == "Time to take your blood pressure medication")
        #expect(event["due"] as? String == ISO8601DateFormatter().string(from: due.date))
        #expect(try rows(harness, reminder: id).map { $0["outcome"] as? String } == ["missed"])
        #expect(monitor.soundSpan() == nil, "a missed reminder is not said")
    }

    /// CPU seconds (user and system) `pid` has used, from /proc.
    static func cpuSeconds(_ pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command's closing parenthesis: state is the first, utime the 12th.
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        return (Double(fields[11])! + Double(fields[12])!) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test func aDaemonIdleAfterAReminderFiredUsesNoCPU() throws {
        // A bug once made the scheduler's wait end at once forever after its first timeout: the
        // daemon spun at full CPU and grew by tens of MB a second, 30 s after any start.
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let (harness, port) = try harness()
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let due = Self.local(2)
        let (_, created) = try daemon.post("/v1/reminders", Self.oneShot(due.text))
        let id = try #require(created["id"] as? String)
        try SoundServer.waitFor("the reminder", timeout: 10) { try rows(harness, reminder: id).first?["outcome"] as? String == "played" }
        sleep(1)
        let pid = daemon.process.processIdentifier
        let before = try Self.cpuSeconds(pid)
        sleep(3)
        let used = try Self.cpuSeconds(pid) - before
        #expect(used < 0.3, "an idle daemon used \(used) s of CPU in 3 s")
    }

    @Test func anEscalationCutOffByAStopIsDeliveredAfterTheNextStart() throws {
        let receiver = try WebhookReceiver(failFirst: 1)
        defer { receiver.stop() }
        let (harness, port) = try harness("reminders:\n  grace: 1s\n  escalate: \(receiver.url)\n")
        var daemon = try Daemon(harness, port: port)
        let due = Self.local(2)
        let (_, created) = try daemon.post("/v1/reminders", #"{"text": "Evening tablets", "time_zone": "UTC", "schedule": {"at": "\#(due.text)"}}"#)
        let id = try #require(created["id"] as? String)
        daemon.stop()
        Thread.sleep(until: due.date.addingTimeInterval(3))
        daemon = try Daemon(harness, port: port)
        // Missed: the first POST is answered 503, and the daemon is stopped in the 1 s before the retry.
        try SoundServer.waitFor("the first attempt", timeout: 10) { receiver.requests == 1 }
        daemon.stop()
        try #require(receiver.requests == 1 && receiver.events.isEmpty, "stopped before the retry")
        daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        try SoundServer.waitFor("the delivery resumed after the start", timeout: 10) { !receiver.events.isEmpty }
        usleep(1_500_000)
        #expect(receiver.requests == 2 && receiver.events.count == 1, "delivered once: \(receiver.requests) requests")
        let event = try #require(receiver.events.first)
        #expect(event["reminder"] as? String == id && event["outcome"] as? String == "missed", "\(event)")
    }

    @Test func inQuietHoursAHighOneIsRaisedOnlyToTheQuietTargetAndRestored() throws {
        try SoundServer.setSink(volumes: ["10%"], muted: false)
        defer { try? SoundServer.setSink(volumes: ["60%"], muted: false) }
        // Begun a minute ago (a window starting "now", rounded up, would begin after the POST).
        let start = Self.local(-60)
        let window = "\(start.text.suffix(8))-\(Self.local(180, from: start.date).text.suffix(8))"
        let (harness, port) = try harness("quiet_hours:\n  time_zone: UTC\n  windows: [\"\(window)\"]\n  target_volume: 35%\n")
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let (status, row) = try daemon.post("/v1/announcements", #"{"text": "\#(UnattendedDaemonTests.longText)", "priority": "high"}"#)
        #expect(status == 202)
        try SoundServer.waitFor("Herald speaking") { try HeraldHarness.heraldIsPlaying() }
        let during = try SoundServer.readSink(named: SoundServer.sink)
        let percent = Double(during.volumes.first ?? 0) / 65_536 * 100
        #expect(abs(percent - 35) < 1.5, "raised to quiet_hours.target_volume (35%), not the day's 70%: \(percent)%")
        let id = try #require(row["id"] as? String)
        try SoundServer.waitFor("the announcement played", timeout: 30) {
            try daemon.get("/v1/announcements/\(id)")["outcome"] as? String == "played"
        }
        let after = try SoundServer.readSink(named: SoundServer.sink)
        #expect(abs(Double(after.volumes.first ?? 0) / 65_536 * 100 - 10) < 1, "restored to 10%")
    }

    /// `?wait=true` on an announcement quiet hours defer answers when it was said, with its
    /// outcome (it answered at once with none, and `herald say` printed "? text on ?").
    @Test func aWaitingRequestDeferredByQuietHoursAnswersWithItsOutcome() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let start = Date()
        let end = Self.local(4, from: start)
        // Begun two seconds ago (a window starting at the next whole second may not have begun yet).
        let (harness, port) = try harness("quiet_hours:\n  time_zone: UTC\n  windows: [\"\(Self.local(-2, from: start).text.suffix(8))-\(end.text.suffix(8))\"]\n")
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let (status, row) = try daemon.post("/v1/announcements?wait=true", #"{"clip": "ding", "priority": "normal", "chime": "none"}"#)
        #expect(status == 200)
        #expect(row["outcome"] as? String == "played", "answered with the outcome: \(row)")
        #expect(Date() >= end.date.addingTimeInterval(-0.2), "answered once quiet hours ended, not at once")
    }

    @Test func quietHoursDeferANormalOneAndLetACriticalOneThrough() throws {
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let start = Date()
        let window = (Self.local(0, from: start).text.suffix(8), Self.local(8, from: start))
        let (harness, port) = try harness("quiet_hours:\n  time_zone: UTC\n  windows: [\"\(window.0)-\(window.1.text.suffix(8))\"]\n")
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let monitor = try MonitorRecording()
        let mark = (wall: Date(), position: monitor.position)
        let due = Self.local(1)
        let (_, created) = try daemon.post("/v1/reminders", Self.oneShot(due.text))
        let id = try #require(created["id"] as? String)
        Thread.sleep(until: due.date.addingTimeInterval(1))
        let (status, critical) = try daemon.post("/v1/announcements?wait=true", #"{"clip": "ding", "priority": "critical", "chime": "none"}"#)
        #expect(status == 200 && critical["outcome"] as? String == "played", "critical plays in quiet hours")
        #expect(try rows(harness, reminder: id).first?["outcome"] == nil, "the normal reminder waits")
        try SoundServer.waitFor("the deferred reminder", timeout: 15) {
            try rows(harness, reminder: id).first?["outcome"] as? String == "played"
        }
        usleep(300_000)
        monitor.stop()
        let levels = monitor.toneLevels(frequency: Self.ding)
        let loud = levels.indices.filter { levels[$0] > 0.01 }.map { mark.wall.addingTimeInterval(Double($0 * 1024) / 48_000 - mark.position) }
        let quietEnd = window.1.date
        #expect(loud.contains { $0 < quietEnd }, "the critical one during quiet hours")
        #expect(loud.contains { $0 >= quietEnd.addingTimeInterval(-0.1) }, "the normal one when they ended")
        let late = try #require(loud.last).timeIntervalSince(quietEnd)
        print("deferred reminder heard \(Int(late * 1000)) ms after quiet hours ended")
    }
}
}

import Foundation
import Testing

/// A room whose speaker is unplugged while an announcement plays there (the sink's module
/// unloaded under the stream, as a USB speaker pulled out does): the other rooms play on; the
/// room hears it when its speaker is back within the max age, and the queue does not wait for it
/// meanwhile; a room whose speaker stays away is logged `missed`.
extension OnTheTestSink {
@Suite final class UnpluggedRoomTests {
    let kitchen = "room_unplugged_kitchen_\(getpid())"
    var module = ""

    init() throws {
        try SoundServer.require()
        try plugIn()
        try SoundServer.setSink(volumes: ["60%"], muted: false)
    }

    deinit { unplug() }

    func plugIn() throws {
        module = try SoundServer.run("/usr/bin/pactl", ["load-module", "module-null-sink", "sink_name=\(kitchen)"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func unplug() {
        guard !module.isEmpty else { return }
        _ = try? SoundServer.run("/usr/bin/pactl", ["unload-module", module])
        module = ""
    }

    /// The counter on the test sink and the kitchen, `normal` waiting at most `maxAge`.
    func daemon(maxAge: String) throws -> (Daemon, HeraldHarness) {
        let (harness, port) = try HeraldHarness.listening("""
            priorities:
              normal:
                max_age: \(maxAge)
            rooms:
              counter: {sink: \(SoundServer.sink)}
              kitchen: {sink: \(kitchen)}
            """)
        return (try Daemon(harness, port: port), harness)
    }

    static let sentence = "Table twelve, your order is ready at the counter; thank you for waiting so patiently this afternoon."

    /// Posts the sentence to both rooms and pulls the kitchen's speaker out once it plays there.
    func sayAndUnplug(_ daemon: Daemon) throws -> String {
        let (status, row) = try daemon.post("/v1/announcements", #"{"text": "\#(Self.sentence)", "rooms": ["all"], "chime": "none"}"#)
        #expect(status == 202, "\(row)")
        try SoundServer.waitFor("the kitchen's sink running") {
            try SoundServer.run("/usr/bin/pactl", ["list", "short", "sinks"]).stdout.split(separator: "\n")
                .contains { $0.contains(kitchen) && $0.hasSuffix("RUNNING") }
        }
        usleep(800_000)
        unplug()
        return try #require(row["id"] as? String)
    }

    func rooms(_ row: [String: Any]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: (row["rooms"] as? [[String: Any]] ?? []).map {
            ($0["room"] as? String ?? "?", $0["outcome"] as? String ?? "?")
        })
    }

    @Test func aRoomWhoseSpeakerIsBackSoonHearsItThenAndTheCounterOnce() throws {
        let (daemon, _) = try daemon(maxAge: "5m")
        defer { _ = daemon.stop() }
        let counter = try MonitorRecording()
        let id = try sayAndUnplug(daemon)
        sleep(3)
        try plugIn()
        let kitchenHears = try MonitorRecording(sink: kitchen)
        try SoundServer.waitFor("the row's outcome", timeout: 30) {
            try daemon.get("/v1/announcements/\(id)")["outcome"] as? String != nil
        }
        usleep(300_000)
        counter.stop()
        kitchenHears.stop()
        let row = try daemon.get("/v1/announcements/\(id)")
        #expect(row["outcome"] as? String == "played", "\(row)")
        #expect(rooms(row) == ["counter": "played", "kitchen": "played"], "\(row)")
        let heard = try #require(kitchenHears.soundSpan(), "the kitchen heard it once its speaker was back")
        #expect(heard.end - heard.start > 2, "the whole sentence, not its tail: \(heard)")
        // Said once at the counter: one stretch of speech, no second one for the kitchen's part.
        let counterSpan = try #require(counter.soundSpan())
        #expect(counterSpan.end - counterSpan.start < (heard.end - heard.start) * 1.5, "counter \(counterSpan), kitchen \(heard)")
    }

    @Test func whileItWaitsForTheSpeakerTheQueueGoesOnAndWithoutItTheRoomIsMissed() throws {
        let (daemon, harness) = try daemon(maxAge: "25s")
        defer { _ = daemon.stop() }
        let id = try sayAndUnplug(daemon)
        try SoundServer.waitFor("the counter's part logged", timeout: 20) {
            rooms(try daemon.get("/v1/announcements/\(id)"))["counter"] == "played"
        }
        let part = try daemon.get("/v1/announcements/\(id)")
        #expect(part["outcome"] == nil || part["outcome"] is NSNull, "the kitchen's part still waits: \(part)")
        try SoundServer.waitFor("the kitchen's part waiting aside, in the status") {
            (try daemon.get("/v1/status")["daemon"] as? [String: Any])?["waiting_for_speakers"] as? Int == 1
        }
        // The kitchen's part waits aside: the next announcement at the counter is said at once.
        let asked = Date()
        let (status, next) = try daemon.post("/v1/announcements?wait=true", #"{"clip": "ding", "rooms": ["counter"], "chime": "none"}"#)
        #expect(status == 200 && next["outcome"] as? String == "played", "\(next)")
        #expect(Date().timeIntervalSince(asked) < 5, "not held behind the kitchen's part")
        // Never back: past its max age (from its arrival) the kitchen is `missed`, the row `partial`.
        try SoundServer.waitFor("the row's outcome", timeout: 40) {
            try daemon.get("/v1/announcements/\(id)")["outcome"] as? String != nil
        }
        let row = try daemon.get("/v1/announcements/\(id)")
        #expect(row["outcome"] as? String == "partial", "\(row)")
        #expect(rooms(row) == ["counter": "played", "kitchen": "missed"], "\(row)")
        let kitchenError = (row["rooms"] as? [[String: Any]])?.first { $0["room"] as? String == "kitchen" }?["error"] as? String
        #expect(kitchenError?.contains("speakers were not back") == true, "\(row)")
        #expect(try harness.history().count == 2, "one row for the sentence, one for the ding")
    }
}
}

import Foundation
import Testing

/// `herald status` shows each configured room and the sink it finds on the real server: by a sink
/// property (as a USB speaker is found on any port), absent, shared with another room, or a match
/// that fits two sinks.
extension OnTheTestSink {
@Suite final class RoomStatusTests {
    init() throws {
        try SoundServer.require()
    }

    func rooms(_ harness: HeraldHarness) throws -> [String: [String: Any]] {
        let result = try harness.herald(["status", "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        var rooms: [String: [String: Any]] = [:]
        for room in json["rooms"] as? [[String: Any]] ?? [] { rooms[room["room"] as? String ?? "?"] = room }
        return rooms
    }

    @Test func eachRoomShowsTheSinkItFindsByPropertyOrWhyItHasNone() throws {
        let harness = try HeraldHarness(extraConfig: """
            rooms:
              counter:
                match: {device.description: Herald-\(SoundServer.sink)}
              kitchen:
                match: {device.bus: usb}
              back:
                sink: \(SoundServer.sink)
            """)
        var found = try rooms(harness)
        #expect(found["counter"]?["sink"] as? String == SoundServer.sink, "\(found)")
        #expect(found["back"]?["sink"] as? String == SoundServer.sink, "\(found)")
        // Two rooms on one speaker would hear everything twice: both say so.
        #expect((found["counter"]?["problem"] as? String)?.contains("room back") == true, "\(found)")
        #expect(found["kitchen"]?["sink"] == nil && (found["kitchen"]?["problem"] as? String)?.contains("device.bus=usb") == true, "\(found)")
        // A second sink with the same description: the match no longer names one, and none is picked.
        let module = try SoundServer.run("/usr/bin/pactl", ["load-module", "module-null-sink", "sink_name=room_twin",
                                                            "sink_properties=device.description=Herald-\(SoundServer.sink)"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        defer { _ = try? SoundServer.run("/usr/bin/pactl", ["unload-module", module]) }
        // herald doctor names the same, one line per room.
        let doctor = try harness.herald(["doctor", "--json", "--no-tone"])
        #expect(doctor.stdout.contains("room kitchen") && doctor.stdout.contains("plug in its speaker"), "\(doctor.stdout)")
        found = try rooms(harness)
        let problem = found["counter"]?["problem"] as? String ?? ""
        #expect(found["counter"]?["sink"] == nil && problem.contains("room_twin") && problem.contains(SoundServer.sink), "\(found)")
    }
}
}

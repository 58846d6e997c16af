import Foundation
import HeraldConfig
import HeraldCore
import Testing

/// `rooms.<room>.noise`: read into the room's noise settings, and every bad value named with its
/// file, line and key and what to do.
@Suite struct NoiseConfigTests {
    @Test func aRoomsNoiseSectionIsReadWithItsDefaults() async throws {
        let folder = try ConfigFolder()
        let configuration = try await folder.load(.utf8("""
            rooms:
              counter:
                sink: shop_speaker
                noise: {source: alsa_input.usb-Mic.mono-fallback, threshold: -45dB, ratio: 1.5, max_gain: 9 dB, window: 1m, sense_delay: 800ms}
              back:
                sink: back_speaker
                noise:
                  match: {device.bus: usb}
              quiet:
                sink: quiet_speaker
            """))
        let rooms = try #require(configuration.configuredRooms)
        let counter = try #require(rooms.room(named: "counter")?.noise)
        #expect(counter.source == .named("alsa_input.usb-Mic.mono-fallback"))
        #expect(counter.thresholdDB == -45 && counter.ratio == 1.5 && counter.maxGainDB == 9)
        #expect(counter.window == .seconds(60) && counter.senseDelay == .milliseconds(800))
        let back = try #require(rooms.room(named: "back")?.noise)
        #expect(back == NoiseSettings(source: .matching(["device.bus": "usb"])))
        #expect(back.thresholdDB == -50 && back.ratio == 1 && back.maxGainDB == 12 && back.window == .seconds(30))
        #expect(rooms.room(named: "quiet")?.noise == nil, "without noise: nothing changes")
    }

    @Test(arguments: [
        ("threshold: 3dB", "threshold", "at or below 0"),
        ("max_gain: -1dB", "max_gain", "0dB to 24dB"),
        ("max_gain: 25dB", "max_gain", "0dB to 24dB"),
        ("ratio: 0", "ratio", "from 0.1 to 4"),
        ("ratio: 4.5", "ratio", "from 0.1 to 4"),
        ("window: 4s", "window", "from 5s"),
        ("threshold: loud", "threshold", "like -50dB"),
        ("volume: 3", "volume", "unknown field"),
    ])
    func aBadValueIsNamedWithItsLineAndWhatToDo(line: String, field: String, advice: String) async throws {
        let folder = try ConfigFolder()
        let problem = try await folder.problems(.utf8("""
            rooms:
              counter:
                sink: shop_speaker
                noise:
                  source: mic
                  \(line)
            """)).first
        #expect(problem?.key == "rooms.counter.noise.\(field)" && problem?.line == 6 && problem?.message.contains(advice) == true,
                "\(String(describing: problem))")
    }

    @Test func aNoiseSectionNeedsOneWayToFindItsMicrophone() async throws {
        let folder = try ConfigFolder()
        let neither = try await folder.problems(.utf8("rooms:\n  counter:\n    sink: s\n    noise: {threshold: -40dB}\n")).first
        #expect(neither?.key == "rooms.counter.noise" && neither?.line == 4 && neither?.message.contains("needs source") == true, "\(String(describing: neither))")
        let both = try await folder.problems(.utf8("rooms:\n  counter:\n    sink: s\n    noise: {source: mic, match: {device.bus: usb}}\n")).first
        #expect(both?.key == "rooms.counter.noise" && both?.message.contains("not both") == true, "\(String(describing: both))")
        let scalar = try await folder.problems(.utf8("rooms:\n  counter:\n    sink: s\n    noise: mic\n")).first
        #expect(scalar?.key == "rooms.counter.noise" && scalar?.message.contains("must be a section") == true, "\(String(describing: scalar))")
    }
}

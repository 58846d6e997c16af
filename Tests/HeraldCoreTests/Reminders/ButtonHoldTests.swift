import Foundation
import HeraldCore
import Testing

/// A button's `quiet` (a hold over the config's quiet hours) and its `volume_up`/`volume_down` levels.
@Suite struct ButtonHoldTests {
    static func at(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test func aHoldDefersEverythingButCriticalUntilItEnds() {
        var quiet = QuietHours(windows: [], timeZone: TimeZone(identifier: "UTC")!)
        quiet.heldUntil = Self.at("2026-11-22T12:30:00Z")
        let noon = Self.at("2026-11-22T12:00:00Z")
        #expect(quiet.policy(for: .critical, at: noon) == .play)
        for priority in [Priority.high, .normal, .low] { #expect(quiet.policy(for: priority, at: noon) == .defer, "\(priority)") }
        #expect(quiet.end(after: noon) == Self.at("2026-11-22T12:30:00Z"))
        #expect(quiet.policy(for: .low, at: Self.at("2026-11-22T12:30:00Z")) == nil, "over at its end")
    }

    @Test func aHoldThatRunsIntoTheNightEndsWithTheNight() {
        var quiet = QuietHours(windows: [QuietWindow("22:00-07:00")!], timeZone: TimeZone(identifier: "UTC")!)
        quiet.heldUntil = Self.at("2026-11-22T22:10:00Z")
        let evening = Self.at("2026-11-22T21:50:00Z")
        #expect(quiet.end(after: evening) == Self.at("2026-11-23T07:00:00Z"))
        #expect(quiet.policy(for: .low, at: Self.at("2026-11-22T23:00:00Z")) == .suppress, "the night's own policy after the hold")
    }

    @Test func aLevelIsStepsOfTenWithinTheRoomsBounds() {
        #expect(RoomVolumes.stepped(70, by: 1, max: Volume(percent: 100)) == 80)
        #expect(RoomVolumes.stepped(95, by: 1, max: Volume(percent: 100)) == 100)
        #expect(RoomVolumes.stepped(80, by: 1, max: Volume(percent: 85)) == 85)
        #expect(RoomVolumes.stepped(15, by: -1, max: Volume(percent: 100)) == RoomVolumes.lowest)
        let volumes = RoomVolumes()
        let house = SafeguardSettings(minVolume: Volume(percent: 50), targetVolume: Volume(percent: 70), maxVolume: Volume(percent: 90))
        #expect(volumes.applied(to: house, room: "kitchen") == house, "no press, the config's")
        volumes.set(40, for: "kitchen")
        let pressed = volumes.applied(to: house, room: "kitchen")
        #expect(pressed.targetVolume.percent == 40 && pressed.minVolume.percent == 40 && pressed.maxVolume == house.maxVolume)
        volumes.set(100, for: "kitchen")
        #expect(volumes.applied(to: house, room: "kitchen").targetVolume.percent == 90, "never above max_volume")
    }
}

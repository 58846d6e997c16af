import Foundation
import HeraldCore
import Testing

/// Quiet hours judged room by room: each room's own windows, the house's policies.
@Suite struct QuietPlanTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let night = ISO8601DateFormatter().date(from: "2026-11-22T23:30:00Z")!
    static let evening = ISO8601DateFormatter().date(from: "2026-11-22T21:30:00Z")!
    let house = QuietHours(windows: [QuietWindow("22:00-07:00")!], timeZone: QuietPlanTests.utc)
    let kitchen = Room(name: "kitchen", sink: .named("usb"), safeguard: .defaults, quietWindows: [])
    let bedroom = Room(name: "bedroom", sink: .named("bt"), safeguard: .defaults, quietWindows: [QuietWindow("21:00-07:00")!])
    let living = Room(name: "living", sink: .named("pci"), safeguard: .defaults)

    @Test func eachRoomHasItsOwnWindowsAndTheHousesPolicies() {
        let rooms = [living, kitchen, bedroom]
        #expect(house.plan(for: .normal, in: rooms, at: Self.night) == QuietPlan(now: ["kitchen"], deferred: ["living", "bedroom"]))
        #expect(house.plan(for: .low, in: rooms, at: Self.night) == QuietPlan(now: ["kitchen"], suppressed: ["living", "bedroom"]))
        #expect(house.plan(for: .high, in: rooms, at: Self.night)
                == QuietPlan(now: ["living", "kitchen", "bedroom"], quieter: ["living": house.targetVolume, "bedroom": house.targetVolume]))
        #expect(house.plan(for: .critical, in: rooms, at: Self.night) == QuietPlan(now: ["living", "kitchen", "bedroom"]))
        // 21:30: the bedroom is quiet from 21:00, the house from 22:00.
        #expect(house.plan(for: .normal, in: rooms, at: Self.evening) == QuietPlan(now: ["living", "kitchen"], deferred: ["bedroom"]))
    }

    @Test func theFirstEndIsTheEarliestRoomsMorning() {
        var early = bedroom
        early.quietWindows = [QuietWindow("21:00-06:00")!]
        #expect(house.firstEnd(in: [living, early], after: Self.night) == ISO8601DateFormatter().date(from: "2026-11-23T06:00:00Z"))
        #expect(house.firstEnd(in: [living, bedroom], after: Self.night) == ISO8601DateFormatter().date(from: "2026-11-23T07:00:00Z"))
        #expect(house.firstEnd(in: [kitchen], after: Self.night) == nil, "never quiet")
        #expect(house.firstEnd(in: [living], after: Self.evening) == nil, "not quiet yet")
    }

    @Test func theOneRoomOfAHouseWithoutRoomsKeepsTheHousesWindows() {
        let single = RoomSettings.single(.defaults).rooms
        #expect(house.plan(for: .normal, in: single, at: Self.night) == QuietPlan(deferred: ["default"]))
        #expect(house.windowsText(in: single[0]) == "22:00-07:00")
    }
}

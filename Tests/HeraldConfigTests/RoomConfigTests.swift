import Foundation
import HeraldConfig
import HeraldCore
import Testing

/// `rooms:` and `groups:` in the config file: read into rooms with their own safeguard and quiet
/// hours, and every mistake named with its file, line and key.
@Suite struct RoomConfigTests {
    @Test func aConfigWithoutRoomsHasTheOneDefaultRoomOnItsSink() async throws {
        let folder = try ConfigFolder()
        let configuration = try await folder.load(.utf8("sink: counter_speaker\n"))
        #expect(configuration.configuredRooms == nil)
        #expect(configuration.rooms.rooms.map(\.name) == ["default"])
        #expect(configuration.rooms.rooms.first?.sink == .named("counter_speaker"))
        #expect(configuration.rooms.rooms.first?.safeguard.targetVolume == configuration.safeguard.targetVolume)
        let none = try await folder.load(.utf8("safeguard:\n  target_volume: 80%\n"))
        #expect(none.rooms.rooms.first?.sink == .serverDefault)
        #expect(try none.rooms.rooms(requested: nil, priority: .normal).map(\.name) == ["default"])
    }

    @Test func roomsGroupsAndTheirOverridesAreRead() async throws {
        let folder = try ConfigFolder()
        let configuration = try await folder.load(.utf8("""
            safeguard:
              target_volume: 70%
            rooms:
              living:
                sink: alsa_output.pci-0000_00_1f.3.analog-stereo
              kitchen:
                match:
                  device.bus: usb
                  alsa.card_name: USB Audio
                quiet_hours: []
              bedroom:
                match: {device.bus: bluetooth}
                safeguard: {target_volume: 60%, mute: respect, lead_in: 900ms}
                quiet_hours: ["21:00-07:00"]
            groups:
              downstairs: [kitchen, living]
              everywhere_but_bed: [downstairs]
            defaults:
              rooms: [downstairs]
            priorities:
              critical:
                rooms: [all]
            """))
        let rooms = configuration.rooms
        #expect(rooms.rooms.map(\.name) == ["living", "kitchen", "bedroom"])
        #expect(rooms.room(named: "living")?.sink == .named("alsa_output.pci-0000_00_1f.3.analog-stereo"))
        #expect(rooms.room(named: "kitchen")?.sink == .matching(["device.bus": "usb", "alsa.card_name": "USB Audio"]))
        #expect(rooms.room(named: "kitchen")?.quietWindows == [])
        let bedroom = try #require(rooms.room(named: "bedroom"))
        #expect(bedroom.safeguard.targetVolume == Volume(percent: 60) && bedroom.safeguard.mutePolicy == .respect)
        #expect(bedroom.safeguard.leadInByClass[.bluetooth] == 900 && bedroom.safeguard.leadInByClass[.virtual] == 900)
        #expect(bedroom.quietWindows == [QuietWindow("21:00-07:00")!])
        let policy = try await folder.load(.utf8("rooms:\n  hall:\n    sink: one\n    safeguard: {lead_in: always}\n"))
        #expect(policy.rooms.room(named: "hall")?.safeguard.leadIn == .always)
        #expect(rooms.room(named: "living")?.safeguard.targetVolume == Volume(percent: 70))
        #expect(try rooms.rooms(requested: nil, priority: .normal).map(\.name) == ["living", "kitchen"])
        #expect(try rooms.rooms(requested: nil, priority: .critical).map(\.name) == ["living", "kitchen", "bedroom"])
        #expect(try rooms.rooms(requested: ["everywhere_but_bed", "kitchen"], priority: .low).map(\.name) == ["living", "kitchen"])
    }

    @Test func mistakesAreNamedWithTheirLineAndKey() async throws {
        let folder = try ConfigFolder()
        func problem(_ text: String) async throws -> ConfigProblem? {
            try await folder.problems(.utf8(text)).first
        }
        let shared = try await problem("""
            rooms:
              counter: {sink: one}
              back: {sink: one}
            """)
        #expect(shared?.key == "rooms.back.sink" && shared?.line == 3 && shared?.message.contains("room counter") == true, "\(String(describing: shared))")
        let unknown = try await problem("""
            rooms:
              counter: {sink: one}
            groups:
              shop: [counter, cellar]
            """)
        #expect(unknown?.key == "groups.shop" && unknown?.line == 4 && unknown?.message.contains("'cellar'") == true, "\(String(describing: unknown))")
        let itself = try await problem("""
            rooms:
              counter: {sink: one}
            groups:
              shop: [counter, shop]
            """)
        #expect(itself?.key == "groups.shop" && itself?.message.contains("names itself") == true, "\(String(describing: itself))")
        let circle = try await folder.problems(.utf8("""
            rooms:
              counter: {sink: one}
            groups:
              a: [b]
              b: [a]
            """))
        #expect(circle.map(\.key) == ["groups.a", "groups.b"] && circle.allSatisfy { $0.message.contains("circle") },
                "each group of the circle says so, neither says the other is unknown: \(circle)")
        // A speaker's own delay: 0 to 2 s, a bare number in ms.
        let offset = try await folder.load(.utf8("rooms:\n  hall: {sink: one}\n  bedroom: {sink: two, latency_offset: 200ms}\n  den: {sink: three, latency_offset: 35}\n"))
        #expect(offset.rooms.rooms.map(\.latencyOffset) == [.zero, .milliseconds(200), .milliseconds(35)])
        for bad in ["-20ms", "3s", "soon"] {
            let late = try await problem("rooms:\n  bedroom:\n    sink: two\n    latency_offset: \(bad)\n")
            #expect(late?.key == "rooms.bedroom.latency_offset" && late?.line == 4 && late?.message.contains("'\(bad)'") == true
                    && late?.message.contains("200ms") == true, "\(String(describing: late))")
        }
        let neither = try await problem("rooms:\n  counter:\n    quiet_hours: []\n")
        #expect(neither?.key == "rooms.counter" && neither?.message.contains("needs sink") == true, "\(String(describing: neither))")
        let field = try await problem("rooms:\n  counter:\n    sink: one\n    volume: 50%\n")
        #expect(field?.key == "rooms.counter.volume" && field?.line == 4, "\(String(describing: field))")
        let percent = try await problem("rooms:\n  counter:\n    sink: one\n    safeguard:\n      target_volume: loud\n")
        #expect(percent?.key == "rooms.counter.safeguard.target_volume" && percent?.line == 5, "\(String(describing: percent))")
        let reminder = try await problem("""
            rooms:
              kitchen: {sink: one}
            reminders:
              list:
                pills:
                  text: Time for your pills
                  schedule: {daily: ["08:00"]}
                  rooms: [kitchen, bedroom]
            """)
        #expect(reminder?.key == "reminders.list.pills.rooms" && reminder?.line == 8 && reminder?.message.contains("'bedroom'") == true,
                "\(String(describing: reminder))")
        let reserved = try await problem("rooms:\n  all: {sink: one}\n")
        #expect(reserved?.key == "rooms.all", "\(String(describing: reserved))")
        let defaults = try await problem("rooms:\n  counter: {sink: one}\ndefaults:\n  rooms: [kitchen]\n")
        #expect(defaults?.key == "defaults.rooms" && defaults?.line == 4 && defaults?.message.contains("counter") == true, "\(String(describing: defaults))")
        let quietSection = try await problem("rooms:\n  bedroom:\n    sink: one\n    quiet_hours:\n      windows: [\"21:00-07:00\"]\n")
        #expect(quietSection?.key == "rooms.bedroom.quiet_hours" && quietSection?.line == 4, "a section is not silently never quiet: \(String(describing: quietSection))")
        let blankMatch = try await problem("rooms:\n  kitchen:\n    match:\n      device.bus:\n")
        #expect(blankMatch?.key == "rooms.kitchen.match", "\(String(describing: blankMatch))")
        let withoutRooms = try await problem("priorities:\n  critical:\n    rooms: [kitchen]\n")
        #expect(withoutRooms?.key == "priorities.critical.rooms", "\(String(describing: withoutRooms))")
    }
}

import HeraldCore
import Testing

/// Rooms find their sinks among those present, by name or by properties, and names expand to rooms.
@Suite struct RoomTests {
    static func sink(_ name: String, _ properties: [String: String] = [:]) -> SinkState {
        SinkState(index: 0, name: name, description: name, state: .idle, muted: false,
                  volumes: ChannelVolumes([Volume(percent: 50)]), channelNames: ["mono"], properties: properties)
    }

    @Test func aRoomFindsItsSinkByNameByPropertiesOrAsTheDefault() {
        let sinks = [Self.sink("pci_analog", ["device.bus": "pci"]), Self.sink("usb_speaker", ["device.bus": "usb", "alsa.card_name": "USB Audio"])]
        let kitchen = Room(name: "kitchen", sink: .matching(["device.bus": "usb"]), safeguard: .defaults)
        #expect(kitchen.pick(from: sinks, defaultSink: nil) == .found(sinks[1]))
        #expect(kitchen.pick(from: [sinks[0]], defaultSink: nil) == .absent)
        let twoUSB = sinks + [Self.sink("usb_other", ["device.bus": "usb"])]
        #expect(kitchen.pick(from: twoUSB, defaultSink: nil) == .ambiguous(["usb_speaker", "usb_other"]))
        let living = Room(name: "living", sink: .named("pci_analog"), safeguard: .defaults)
        #expect(living.pick(from: sinks, defaultSink: "usb_speaker") == .found(sinks[0]))
        let house = Room(name: "default", sink: .serverDefault, safeguard: .defaults)
        #expect(house.pick(from: sinks, defaultSink: "usb_speaker") == .found(sinks[1]))
        #expect(house.pick(from: sinks, defaultSink: nil) == .absent)
    }

    @Test func namesExpandToRoomsOnceInTheHousesOrder() throws {
        let rooms = ["living", "kitchen", "bedroom"].map { Room(name: $0, sink: .named($0), safeguard: .defaults) }
        let settings = RoomSettings(rooms: rooms, groups: ["downstairs": ["kitchen", "living"], "nested": ["downstairs"]])
        #expect(try settings.expand(["bedroom", "downstairs", "living"]).map(\.name) == ["living", "kitchen", "bedroom"])
        #expect(try settings.expand(["nested"]).map(\.name) == ["living", "kitchen"])
        #expect(try settings.expand(["all"]).count == 3)
        #expect(throws: RoomSettings.Problem.empty) { try settings.expand([]) }
        #expect(throws: RoomSettings.Problem.unknown("attic", known: settings.knownNames)) { try settings.expand(["attic"]) }
        let circular = RoomSettings(rooms: rooms, groups: ["a": ["b"], "b": ["a", "kitchen"]])
        #expect(circular.cycles()["a"] == ["a", "b"])
        #expect(try circular.expand(["a"]).map(\.name) == ["kitchen"])
    }
}

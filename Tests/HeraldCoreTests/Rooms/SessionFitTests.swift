import HeraldCore
import HeraldTesting
import Testing

/// Whether the open session takes the next announcement, decided from one look at the server.
@Suite struct SessionFitTests {
    static func sink(_ name: String, percent level: Double = 60, muted: Bool = false, _ properties: [String: String] = [:]) -> SinkState {
        SinkState(index: 0, name: name, description: name, state: .running, muted: muted,
                  volumes: ChannelVolumes([Volume(percent: level)]), channelNames: ["mono"], properties: properties)
    }

    static func entry(_ sink: String, set level: Double) -> JournalEntry {
        JournalEntry(sinkName: sink, originalVolumes: ChannelVolumes([Volume(percent: 20)]), originalMuted: false,
                     setVolumes: ChannelVolumes([Volume(percent: level)]), unmuted: false, ducks: [], processID: 1)
    }

    let kitchen = Room(name: "kitchen", sink: .matching(["device.bus": "usb"]), safeguard: .defaults)
    let living = Room(name: "living", sink: .serverDefault, safeguard: .defaults)
    var held: SessionFit.Held {
        SessionFit.Held(placed: [("living", "pci"), ("kitchen", nil)], open: [("living", "pci", Self.entry("pci", set: 60))],
                        leftOut: [(kitchen, .missed)])
    }

    @Test func theSameRoomsWhereTheyWereAndAsTheyWereLeftReuseIt() {
        let sinks = [Self.sink("pci", percent: 60)]
        #expect(SessionFit.decide(held, rooms: [living, kitchen], priority: .normal, policies: .defaults,
                                  sinks: sinks, defaultSink: "pci") == .reuse)
        #expect(SessionFit.decide(held, rooms: [living, kitchen], priority: .normal, policies: .defaults,
                                  sinks: nil, defaultSink: nil) == .reuse, "a failed look says nothing moved")
    }

    @Test func otherRoomsAMovedDefaultAReturningSpeakerOrAPersonsChangeReopenIt() {
        let sinks = [Self.sink("pci"), Self.sink("hdmi")]
        #expect(SessionFit.decide(held, rooms: [living], priority: .normal, policies: .defaults, sinks: sinks, defaultSink: "pci")
                == .reopen(.roomsMoved), "other rooms")
        #expect(SessionFit.decide(held, rooms: [living, kitchen], priority: .normal, policies: .defaults, sinks: sinks, defaultSink: "hdmi")
                == .reopen(.roomsMoved), "a new default sink")
        let plugged = sinks + [Self.sink("usb_speaker", ["device.bus": "usb"])]
        #expect(SessionFit.decide(held, rooms: [living, kitchen], priority: .normal, policies: .defaults, sinks: plugged, defaultSink: "pci")
                == .reopen(.roomsMoved), "the kitchen's speaker is back: its room is placed elsewhere now")
        #expect(SessionFit.decide(held, rooms: [living, kitchen], priority: .normal, policies: .defaults,
                                  sinks: [Self.sink("pci", percent: 40)], defaultSink: "pci") == .reopen(.changedByUser("pci")))
        #expect(SessionFit.decide(held, rooms: [living, kitchen], priority: .normal, policies: .defaults,
                                  sinks: [Self.sink("pci", percent: 90, muted: true)], defaultSink: "pci") == .reopen(.changedByUser("pci")))
        #expect(SessionFit.decide(held, rooms: [living, kitchen], priority: .normal, policies: .defaults,
                                  sinks: [Self.sink("pci", percent: 90)], defaultSink: "pci") == .reuse, "louder is fine")
    }

    @Test func aRoomLeftOutJoinsWhenItCanBeHad() {
        // A named room placed by name whatever is there: its return shows only as a left-out room found.
        let bedroom = Room(name: "bedroom", sink: .named("bt"), safeguard: .defaults)
        let missing = SessionFit.Held(placed: [("living", "pci"), ("bedroom", "bt")], open: [("living", "pci", Self.entry("pci", set: 60))],
                                      leftOut: [(bedroom, .missed)])
        #expect(SessionFit.decide(missing, rooms: [living, bedroom], priority: .normal, policies: .defaults,
                                  sinks: [Self.sink("pci")], defaultSink: "pci") == .reuse, "still unplugged")
        #expect(SessionFit.decide(missing, rooms: [living, bedroom], priority: .normal, policies: .defaults,
                                  sinks: [Self.sink("pci"), Self.sink("bt")], defaultSink: "pci") == .reopen(.roomCanJoin("bedroom")))
        var respectful = PriorityPolicies.defaults
        respectful[.normal].mute = .respect
        let muted = SessionFit.Held(placed: [("living", "pci"), ("bedroom", "bt")], open: [("living", "pci", Self.entry("pci", set: 60))],
                                    leftOut: [(bedroom, .suppressedMuted)])
        let sinks = [Self.sink("pci"), Self.sink("bt", muted: true)]
        #expect(SessionFit.decide(muted, rooms: [living, bedroom], priority: .normal, policies: respectful, sinks: sinks, defaultSink: "pci") == .reuse)
        #expect(SessionFit.decide(muted, rooms: [living, bedroom], priority: .critical, policies: respectful, sinks: sinks, defaultSink: "pci")
                == .reopen(.roomCanJoin("bedroom")), "critical unmutes")
        #expect(SessionFit.decide(muted, rooms: [living, bedroom], priority: .critical, policies: respectful, sinks: nil, defaultSink: nil)
                == .reopen(.roomCanJoin("bedroom")), "with no look at the server too")
    }
}

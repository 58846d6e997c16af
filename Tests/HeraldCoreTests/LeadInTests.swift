import HeraldCore
import Testing

/// Sink properties as `pactl list sinks` shows them on PulseAudio 16 and PipeWire.
@Suite struct SinkDeviceClassTests {
    @Test func aBluezSinkIsBluetooth() {
        let properties = ["bluetooth.protocol": "a2dp_sink", "device.string": "00:1B:66:AA:BB:CC",
                          "device.api": "bluez", "device.class": "sound", "device.bus": "bluetooth",
                          "device.form_factor": "speaker", "device.icon_name": "audio-speaker-bluetooth"]
        #expect(SinkDeviceClass.classify(properties, sinkName: "bluez_sink.00_1B_66_AA_BB_CC.a2dp_sink",
                                         activePort: "speaker-output") == .bluetooth)
        // PipeWire names the API bluez5 and the sink bluez_output.
        #expect(SinkDeviceClass.classify(["device.api": "bluez5", "factory.name": "api.bluez5.a2dp.sink"],
                                         sinkName: "bluez_output.00_1B_66_AA_BB_CC.1") == .bluetooth)
    }

    @Test func anHDMIOutputIsHDMIThoughItIsAPCICard() {
        let properties = ["alsa.card_name": "HDA NVidia", "device.api": "alsa", "device.class": "sound",
                          "device.bus": "pci", "device.bus_path": "pci-0000:01:00.1",
                          "device.profile.name": "hdmi-stereo", "device.icon_name": "audio-card-pci"]
        #expect(SinkDeviceClass.classify(properties, sinkName: "alsa_output.pci-0000_01_00.1.hdmi-stereo",
                                         activePort: "hdmi-output-0") == .hdmi)
        let byPortOnly = ["device.api": "alsa", "device.bus": "pci", "device.profile.name": "multichannel-output"]
        #expect(SinkDeviceClass.classify(byPortOnly, sinkName: "alsa_output.1", activePort: "HDMI-Output-1") == .hdmi)
        #expect(SinkDeviceClass.classify(["device.bus": "pci", "device.profile.name": "iec958-dp-stereo"]) == .hdmi)
    }

    @Test func aUSBHeadsetIsUSB() {
        let properties = ["device.api": "alsa", "device.class": "sound", "device.bus": "usb",
                          "device.form_factor": "headset", "device.profile.name": "analog-stereo",
                          "device.icon_name": "audio-headset-usb"]
        #expect(SinkDeviceClass.classify(properties, sinkName: "alsa_output.usb-Logitech_USB_Headset-00.analog-stereo",
                                         activePort: "analog-output") == .usb)
    }

    @Test func theBoardsAnalogOutputIsBuiltIn() {
        let properties = ["device.api": "alsa", "device.class": "sound", "device.bus": "pci",
                          "device.form_factor": "internal", "device.profile.name": "analog-stereo"]
        #expect(SinkDeviceClass.classify(properties, sinkName: "alsa_output.pci-0000_00_1f.3.analog-stereo",
                                         activePort: "analog-output-speaker") == .builtin)
        // A Raspberry Pi's headphone jack: ALSA on the SoC, no bus named.
        #expect(SinkDeviceClass.classify(["device.api": "alsa", "device.class": "sound"],
                                         sinkName: "alsa_output.platform-bcm2835_audio.analog-stereo") == .builtin)
    }

    @Test func aNullSinkIsVirtual() {
        #expect(SinkDeviceClass.classify(["device.description": "Null Output", "device.class": "abstract",
                                          "device.icon_name": "audio-card"], sinkName: "herald_test") == .virtual)
        #expect(SinkDeviceClass.classify(["factory.name": "support.null-audio-sink", "media.class": "Audio/Sink"],
                                         sinkName: "my-null") == .virtual)
        // A null sink named like an HDMI output is still a null sink.
        #expect(SinkDeviceClass.classify(["device.class": "abstract"], sinkName: "fake-hdmi") == .virtual)
    }

    @Test func aSinkThatSaysNothingIsUnknown() {
        #expect(SinkDeviceClass.classify([:], sinkName: "tunnel.server.local.sink") == .unknown)
        #expect(SinkDeviceClass.classify(["device.class": "filter", "device.master_device": "x"],
                                         sinkName: "remapped") == .unknown)
    }
}

@Suite struct LeadInTests {
    func sink(_ state: SinkRunState, _ deviceClass: SinkDeviceClass, name: String = "speaker") -> SinkState {
        SinkState(index: 1, name: name, description: "", state: state, muted: false,
                  volumes: ChannelVolumes([Volume(percent: 50)]), channelNames: ["mono"], deviceClass: deviceClass)
    }

    @Test func autoPlaysItOnlyForASuspendedSinkSizedByItsClass() {
        let settings = SafeguardSettings.defaults
        #expect(settings.leadIn(for: sink(.suspended, .bluetooth)) == 700)
        #expect(settings.leadIn(for: sink(.suspended, .hdmi)) == 500)
        #expect(settings.leadIn(for: sink(.suspended, .usb)) == 150)
        #expect(settings.leadIn(for: sink(.suspended, .builtin)) == 50)
        #expect(settings.leadIn(for: sink(.suspended, .virtual)) == 0)
        #expect(settings.leadIn(for: sink(.suspended, .unknown)) == 150)
        for state in [SinkRunState.idle, .running, .unknown] {
            #expect(settings.leadIn(for: sink(state, .bluetooth)) == 0, "an \(state) sink is awake")
        }
    }

    @Test func aSinksOwnValueComesBeforeItsClass() {
        var settings = SafeguardSettings.defaults
        settings.leadInBySink = ["tv": 1200]
        #expect(settings.leadIn(for: sink(.suspended, .hdmi, name: "tv")) == 1200)
        #expect(settings.leadIn(for: sink(.idle, .hdmi, name: "tv")) == 0)
        #expect(settings.leadIn(for: sink(.suspended, .hdmi, name: "monitor")) == 500)
    }

    @Test func alwaysPlaysItInEveryState() {
        var settings = SafeguardSettings.defaults
        settings.leadIn = .always
        settings.leadInBySink = ["tv": 1200]
        #expect(settings.leadIn(for: sink(.running, .bluetooth)) == 700)
        #expect(settings.leadIn(for: sink(.idle, .hdmi, name: "tv")) == 1200)
        #expect(settings.leadIn(for: sink(.running, .virtual)) == 0)
        settings.leadInByClass[.usb] = nil
        #expect(settings.leadIn(for: sink(.running, .usb)) == 150, "a class with no value gets the unknown class's")
    }

    @Test func neverPlaysIt() {
        var settings = SafeguardSettings.defaults
        settings.leadIn = .never
        settings.leadInBySink = ["tv": 1200]
        #expect(settings.leadIn(for: sink(.suspended, .bluetooth)) == 0)
        #expect(settings.leadIn(for: sink(.suspended, .hdmi, name: "tv")) == 0)
    }
}

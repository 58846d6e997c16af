/// What kind of device a sink plays on, as far as its properties tell; it sizes the lead-in
/// (DESIGN.md rule 6): a Bluetooth speaker or an HDMI receiver waking from suspend eats the
/// first half second, a null sink eats nothing.
public enum SinkDeviceClass: String, Sendable, Codable, CaseIterable {
    /// A Bluetooth (A2DP, HSP/HFP) speaker or headset: the link is set up on wake.
    case bluetooth
    /// HDMI or DisplayPort: the TV or receiver mutes its input while it syncs to the signal.
    case hdmi
    /// A USB sound card or headset.
    case usb
    /// A sound card on the board (PCI, a SoC's analog output): wakes fast.
    case builtin
    /// A sink with no device behind it (a null sink, as tests and monitors use).
    case virtual
    /// Nothing in the properties says (a tunnel, a filter on top of another sink, ...).
    case unknown

    /// The class from a sink's properties (`pactl list sinks` shows them), its name and its
    /// active port.
    ///
    /// Bluetooth first (its form factor says `speaker` or `headset` too), then sinks with no
    /// device (PulseAudio's null sink sets `device.class = abstract`; PipeWire's says
    /// `support.null-audio-sink`), then HDMI/DisplayPort by profile, port or name (an HDMI output
    /// is a PCI card like the analog one beside it), then the bus.
    /// ```swift
    /// SinkDeviceClass.classify(["device.bus": "bluetooth", "device.api": "bluez"]) // .bluetooth
    /// ```
    public static func classify(_ properties: [String: String], sinkName: String = "",
                                activePort: String? = nil) -> SinkDeviceClass {
        func value(_ key: String) -> String { properties[key]?.lowercased() ?? "" }
        let bus = value("device.bus"), api = value("device.api")
        if bus == "bluetooth" || api.hasPrefix("bluez") || sinkName.lowercased().hasPrefix("bluez") {
            return .bluetooth
        }
        if value("device.class") == "abstract" || value("factory.name") == "support.null-audio-sink"
            || sinkName == "auto_null" {
            return .virtual
        }
        let names = [value("device.profile.name"), value("device.form_factor"), activePort?.lowercased() ?? "",
                     sinkName.lowercased()]
        if names.contains(where: { $0.contains("hdmi") || $0.contains("displayport") || $0.contains("iec958-dp") }) {
            return .hdmi
        }
        if bus == "usb" { return .usb }
        if value("device.form_factor") == "internal" || bus == "pci" || bus == "platform"
            || (api == "alsa" && bus.isEmpty) {
            return .builtin
        }
        return .unknown
    }
}

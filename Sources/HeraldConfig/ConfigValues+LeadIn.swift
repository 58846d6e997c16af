import Foundation
import HeraldCore

extension ConfigValues {
    /// The longest lead-in a key may ask for: past it the listener waits, not the speaker.
    static let maxLeadIn = Duration.seconds(5)

    /// `safeguard.lead_in_by_class.<class>` and `safeguard.lead_in_sinks.<sink name>`, each a
    /// duration such as `700ms` or `0.5s` (a plain number is milliseconds).
    mutating func readLeadIns(into safeguard: inout SafeguardSettings) {
        for deviceClass in SinkDeviceClass.allCases {
            let key = "safeguard.lead_in_by_class.\(deviceClass.rawValue)"
            if let value = duration(key, range: .zero ... Self.maxLeadIn, plainUnit: .milliseconds) {
                safeguard.leadInByClass[deviceClass] = value.inMilliseconds
            }
        }
        // Sink names hold dots (alsa_output.pci-0000_00_1f.3.analog-stereo), so the entries are
        // read as the file wrote them, not through dotted config keys.
        for (sink, text) in layout.mappings["safeguard.lead_in_sinks"] ?? [] {
            if let length = leadInLength(text, key: "safeguard.lead_in_sinks.\(sink)") { safeguard.leadInBySink[sink] = length }
        }
    }

    /// `text` as a lead-in length in milliseconds (0 to 5 s); nil after reporting it under `key`.
    mutating func leadInLength(_ text: String, key: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let value = DurationText.parse(trimmed, plainUnit: .milliseconds), value <= Self.maxLeadIn else {
            report(key, "'\(trimmed)' is not a lead-in; write it like 300ms, from 0ms to 5s")
            return nil
        }
        return value.inMilliseconds
    }
}

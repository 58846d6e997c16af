/// A control character in a text to be said (a bell, an escape, a NUL...), and where it is.
///
/// The command line refuses one before anything is sent or played, in the same words whether a
/// daemon takes the text or this process plays it; the API refuses it while reading the JSON.
/// Tab and line breaks are not refused: a text pasted from a file may carry them, and the API
/// takes them too.
public struct ControlCharacter: Sendable, Equatable, CustomStringConvertible {
    public var scalar: Unicode.Scalar
    /// 1-based, in characters as a person counts them.
    public var position: Int

    /// The first control character in `text`, or nil.
    public static func first(in text: String) -> ControlCharacter? {
        for (offset, character) in text.enumerated() {
            if let scalar = character.unicodeScalars.first(where: isRefused) {
                return ControlCharacter(scalar: scalar, position: offset + 1)
            }
        }
        return nil
    }

    /// C0 (but tab, line feed and carriage return), DEL and C1: Unicode's category Cc.
    public static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control && !["\t", "\n", "\r"].contains(scalar)
    }

    /// `the text contains a control character (U+0007 BEL) at position 5; remove it`
    public var description: String {
        let name = Self.names[Int(scalar.value)].map { " \($0)" } ?? ""
        return "the text contains a control character (\(scalar.codePoint)\(name)) at position \(position); remove it"
    }

    /// The ASCII and ISO 6429 abbreviations, which is what a terminal's user may know them by.
    private static let names: [Int: String] = {
        let c0 = ["NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR", "SO", "SI",
                  "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US"]
        let c1 = ["PAD", "HOP", "BPH", "NBH", "IND", "NEL", "SSA", "ESA", "HTS", "HTJ", "VTS", "PLD", "PLU", "RI", "SS2", "SS3",
                  "DCS", "PU1", "PU2", "STS", "CCH", "MW", "SPA", "EPA", "SOS", "SGC", "SCI", "CSI", "ST", "OSC", "PM", "APC"]
        var names = [0x7F: "DEL"]
        for (index, name) in c0.enumerated() { names[index] = name }
        for (index, name) in c1.enumerated() { names[0x80 + index] = name }
        return names
    }()
}

extension Unicode.Scalar {
    /// `U+0007`: the code point as Unicode writes it, at least four hex digits.
    public var codePoint: String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

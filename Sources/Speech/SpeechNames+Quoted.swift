import HeraldCore

extension SpeechNames {
    /// `value` quoted for a message, cut short when it is long (a 5,000-character language).
    static func quoted(_ value: String) -> String {
        value.count <= 40 ? "'\(value)'" : "'\(value.prefix(32))...' (\(value.count) characters)"
    }
}

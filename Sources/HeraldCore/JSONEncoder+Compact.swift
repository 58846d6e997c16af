import Foundation

extension JSONEncoder {
    /// Compact JSON with sorted keys, ISO 8601 times and slashes left as they are: what the fleet
    /// publishes and serves (heartbeats, alarm notices, the console's API).
    public static var compact: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

import Foundation

extension JSONEncoder {
    /// snake_case keys, ISO 8601 dates, sorted keys: the API's JSON, both ways.
    public static var api: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

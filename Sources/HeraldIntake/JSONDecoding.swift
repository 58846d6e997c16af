import Foundation
import HeraldCore

/// Strict JSON syntax (`StrictJSON`), as a 400 naming where it is wrong; what it reports of the
/// top-level object tells a push payload from a native one.
@discardableResult
public func checkSyntax(_ bytes: [UInt8]) throws(IntakeError) -> StrictJSON.TopLevel {
    do { return try StrictJSON.check(bytes) } catch { throw IntakeError.badRequest(error.field, error.message) }
}

/// Decodes `bytes` already checked by `StrictJSON.check` (run once per body), with snake_case
/// keys; a failure names the field in words a client developer knows.
public func decodeChecked<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(IntakeError) -> T {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    do {
        return try decoder.decode(T.self, from: Data(bytes))
    } catch let error as DecodingError {
        throw IntakeError.badRequest(error.fieldPath, error.humanMessage)
    } catch {
        throw IntakeError.badRequest(nil, "\(error)")
    }
}

/// Strict JSON syntax first (`StrictJSON`), then decoding with snake_case keys; every failure names the field.
public func decodeJSON<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(IntakeError) -> T {
    try checkSyntax(bytes)
    return try decodeChecked(type, from: bytes)
}

extension DecodingError {
    var fieldPath: String? {
        let path: [any CodingKey]
        switch self {
        case .keyNotFound(let key, let context): path = context.codingPath + [key]
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context): path = context.codingPath
        @unknown default: return nil
        }
        let names = path.map { $0.intValue.map { "[\($0)]" } ?? Self.snake($0.stringValue) }
        return names.isEmpty ? nil : names.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
    }

    /// The problem without Swift's type names: `must be a string`, not `Dictionary<String, Any>`.
    var humanMessage: String {
        switch self {
        case .keyNotFound: "is required"
        case .typeMismatch(let type, let context) where type == AmountText.self:
            context.codingPath.isEmpty ? "the body must be a JSON object ({...})" : "must be an amount: a string like \"25.30\" or a number"
        case .typeMismatch(let type, let context):
            context.codingPath.isEmpty ? "the body must be a JSON object ({...})" : "must be \(Self.words(for: type))"
        case .valueNotFound(let type, _): "must not be null; send \(Self.words(for: type)) or leave the field out"
        case .dataCorrupted(let context):
            context.codingPath.isEmpty ? "the body is not a JSON object" : "is not valid here; check its type and value"
        @unknown default: "is not valid"
        }
    }

    static func words(for type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Double.Type, is Decimal.Type, is Int64.Type: "a number"
        case is [String: String].Type: "an object of string values ({\"name\": \"value\"})"
        default:
            "\(type)".hasPrefix("Array") ? "a list ([...])" : "a JSON object ({...})"
        }
    }

    static func snake(_ name: String) -> String {
        name.reduce(into: "") { result, character in
            if character.isUppercase { result += "_" + character.lowercased() } else { result.append(character) }
        }
    }
}

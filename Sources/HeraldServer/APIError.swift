import Foundation
import HeraldApp
import HeraldCore
import HTTPTypes
import Hummingbird

/// An error answered as JSON: `{"error": {"field": "payment.amount", "message": "..."}}`.
public struct APIError: Error, HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    /// The request field at fault, dotted; nil when the request as a whole is.
    public var field: String?
    public var message: String
    /// Extra headers, such as `Allow` on a 405.
    public var headers: HTTPFields = [:]

    public init(_ status: HTTPResponse.Status, field: String? = nil, _ message: String) {
        self.status = status
        self.field = field
        self.message = message
    }

    public static func badRequest(_ field: String?, _ message: String) -> APIError { APIError(.badRequest, field: field, message) }

    /// This refusal, counted in `herald_refusals_total` (`JSONErrorMiddleware` logs it).
    func counted(as reason: HeraldMetrics.Refusal, via: String = "http") -> APIError {
        HeraldMetrics.refused(reason, via: via)
        return self
    }

    struct Body: Encodable {
        struct Detail: Encodable {
            var field: String?
            var message: String
        }
        var error: Detail
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        let data = try JSONEncoder.api.encode(Body(error: .init(field: field, message: message)))
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension JSONEncoder {
    /// snake_case keys, ISO 8601 dates: the API's JSON.
    static var api: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

/// A JSON response of any `Encodable`, with a status.
struct JSONResponse<Value: Encodable & Sendable>: ResponseGenerator {
    var status: HTTPResponse.Status = .ok
    var value: Value

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        let data = try JSONEncoder.api.encode(value)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// An announcement's row as JSON, or its one-line summary (`AnnouncementRecord.summaryLine`)
/// for a client that accepts only `text/plain`: the lean `herald` front, which prints it as is.
struct RecordResponse: ResponseGenerator {
    var status: HTTPResponse.Status
    var record: AnnouncementRecord

    func response(from request: Request, context: some RequestContext) throws -> Response {
        guard request.headers[.accept] == "text/plain" else {
            return try JSONResponse(status: status, value: record).response(from: request, context: context)
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: record.summaryLine + "\n")))
    }
}

/// Reads a JSON body of at most `limit` bytes: strict JSON first (`StrictJSON`), then the
/// type, with every error a 400 naming the field in words a client developer knows.
/// (`BodyDeadlineHandler` bounds how long the body may take.)
/// The whole body, at most `limit` bytes (413 beyond).
func collectBody(_ request: Request, limit: Int) async throws -> [UInt8] {
    do {
        return Array(try await request.body.collect(upTo: limit).readableBytesView)
    } catch {
        throw APIError(.contentTooLarge, "the body is larger than \(limit) bytes (api.max_body_bytes)")
    }
}

/// Strict JSON syntax first, then decoding with snake_case keys; every failure names the field.
func decodeJSON<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
    try checkSyntax(bytes)
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    do {
        return try decoder.decode(T.self, from: Data(bytes))
    } catch let error as DecodingError {
        throw APIError.badRequest(error.fieldPath, error.humanMessage)
    }
}

func checkSyntax(_ bytes: [UInt8]) throws {
    do { try StrictJSON.check(bytes) } catch { throw APIError.badRequest(error.field, error.message) }
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

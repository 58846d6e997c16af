import Foundation
import HTTPTypes
import Hummingbird

/// An error answered as JSON: `{"error": {"field": "payment.amount", "message": "..."}}`.
public struct APIError: Error, HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    /// The request field at fault, dotted; nil when the request as a whole is.
    public var field: String?
    public var message: String

    public init(_ status: HTTPResponse.Status, field: String? = nil, _ message: String) {
        self.status = status
        self.field = field
        self.message = message
    }

    public static func badRequest(_ field: String?, _ message: String) -> APIError { APIError(.badRequest, field: field, message) }

    struct Body: Encodable {
        struct Detail: Encodable {
            var field: String?
            var message: String
        }
        var error: Detail
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
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

/// Reads a JSON body of at most `limit` bytes, turning decoding errors into 400s naming the field.
func decodeBody<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
    let buffer: ByteBuffer
    do {
        buffer = try await request.body.collect(upTo: limit)
    } catch {
        throw APIError(.contentTooLarge, "the body is larger than \(limit) bytes")
    }
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    do {
        return try decoder.decode(T.self, from: Data(buffer: buffer))
    } catch let error as DecodingError {
        throw APIError.badRequest(error.fieldPath, error.humanMessage)
    }
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

    var humanMessage: String {
        switch self {
        case .keyNotFound: "is required"
        case .typeMismatch(let type, _): "has the wrong type; expected \(type == String.self ? "a string" : "\(type)")"
        case .valueNotFound: "must not be null"
        case .dataCorrupted(let context):
            context.codingPath.isEmpty ? "the body is not valid JSON" : "is not valid: \(context.debugDescription)"
        @unknown default: "is not valid"
        }
    }

    static func snake(_ name: String) -> String {
        name.reduce(into: "") { result, character in
            if character.isUppercase { result += "_" + character.lowercased() } else { result.append(character) }
        }
    }
}

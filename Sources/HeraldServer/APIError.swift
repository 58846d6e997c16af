import Foundation
import HeraldApp
import HeraldCore
import HeraldIntake
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

    /// 429, with `Retry-After` saying when the rate limit lets one more request through (its
    /// bucket refills one request every 60 / `perMinute` seconds), so a till backs off as long
    /// as it needs and no longer.
    static func rateLimited(field: String?, _ message: String, perMinute: Int) -> APIError {
        var error = APIError(.tooManyRequests, field: field, message)
        error.headers[.retryAfter] = "\(max(1, Int((60 / Double(max(1, perMinute))).rounded(.up))))"
        return error
    }

    /// The answer to an intake's refusal: 400, 401 or 422 as its reason says.
    public init(_ refusal: IntakeError) {
        let status: HTTPResponse.Status = switch refusal.reason {
        case .badRequest: .badRequest
        case .unauthorized: .unauthorized
        case .unprocessable: .unprocessableContent
        }
        self.init(status, field: refusal.field, refusal.message)
    }

    /// This refusal, counted in `herald_refusals_total` (`JSONErrorMiddleware` logs it).
    func counted(as reason: HeraldMetrics.Refusal, via: String = "http") -> APIError {
        HeraldMetrics.refused(reason, via: via)
        return self
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        let data = try JSONEncoder.api.encode(ErrorBody(error: .init(field: field, message: message)))
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
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

/// The whole body, at most `limit` bytes (413 beyond). (`BodyDeadlineHandler` bounds how long
/// it may take.)
func collectBody(_ request: Request, limit: Int) async throws -> [UInt8] {
    do {
        return Array(try await request.body.collect(upTo: limit).readableBytesView)
    } catch {
        throw APIError(.contentTooLarge, "the body is larger than \(limit) bytes (api.max_body_bytes)")
    }
}

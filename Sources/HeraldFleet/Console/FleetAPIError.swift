import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// An answer other than success, as JSON naming the field at fault: `{"error": "...", "field": "hub"}`.
struct FleetAPIError: Error {
    var status: HTTPResponse.Status
    var field: String?
    var message: String

    init(_ status: HTTPResponse.Status, field: String? = nil, _ message: String) {
        self.status = status
        self.field = field
        self.message = message
    }
}

/// Turns every error into that JSON: a `FleetAPIError` as it is, Hummingbird's own (a bad path,
/// a body too large) with its status, anything else (the database down) as 503, logged.
struct FleetErrorMiddleware: RouterMiddleware {
    typealias Context = FleetRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            var response = try await next(request, context)
            response.headers[.xContentTypeOptions] = "nosniff"
            return response
        } catch let error as FleetAPIError {
            return Self.answer(error)
        } catch let error as HTTPError {
            return Self.answer(FleetAPIError(error.status, error.body ?? "\(error.status)"))
        } catch {
            logger.error("fleet: \(request.method) \(request.uri.path) failed: \(String(reflecting: error))")
            return Self.answer(FleetAPIError(.serviceUnavailable, "the fleet database did not answer; try again shortly (\(error))"))
        }
    }

    static func answer(_ error: FleetAPIError) -> Response {
        var object: [String: String] = ["error": error.message]
        if let field = error.field { object["field"] = field }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: error.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

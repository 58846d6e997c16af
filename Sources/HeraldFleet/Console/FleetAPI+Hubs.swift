import Foundation
import Hummingbird
import NIOCore
import RuntimePaths

extension FleetAPI {
    /// `GET /v1/hubs`, in the three forms `HubListRequest` reads. A page or a change list carries
    /// an `ETag` (a hash of the body): asked again with it in `If-None-Match`, an unchanged answer
    /// is a 304 with no body (a browser does that itself under `Cache-Control: no-cache`).
    func hubs(_ request: Request) async throws -> Response {
        var parameters: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { parameters[String(name)] = String(value) }
        switch try HubListRequest.parse(parameters) {
        case .all(let filter):
            return try json(try await store.hubs(filter))
        case .page(let filter, let after, let limit):
            return try tagged(try await store.hubPage(filter, after: after, limit: limit), request)
        case .changes(let filter, let since, let limit):
            return try tagged(try await store.hubChanges(filter, since: since, limit: limit), request)
        }
    }

    /// `value` as JSON with its ETag, or 304 when the client already has it. The cursor is left
    /// out of the hash: it moves with the clock, the hubs do not.
    private func tagged<Value: Encodable & CursorCarrying>(_ value: Value, _ request: Request) throws -> Response {
        var unstamped = value
        unstamped.cursor = ""
        let tag = "\"" + RuntimePaths.fnv1aHex(bytes: try JSONEncoder.compact.encode(unstamped)) + "\""
        var response: Response
        if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == tag }) == true {
            response = Response(status: .notModified)
        } else {
            response = try json(value)
        }
        response.headers[.eTag] = tag
        response.headers[.cacheControl] = "no-cache"
        return response
    }
}

/// An answer whose `cursor` moves with the clock alone.
protocol CursorCarrying {
    var cursor: String { get set }
}

extension HubPage: CursorCarrying {}
extension HubChanges: CursorCarrying {}

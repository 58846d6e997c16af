import HeraldIntake
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// The API's routes by path pattern, to tell a wrong method (405 with `Allow`) from a wrong path.
final class RouteTable: Sendable {
    private let routes = Mutex<[(segments: [Substring], methods: [HTTPRequest.Method])]>([])

    /// Serves `handler` at `method` `path` on `router`, and records the route (a 405 names the
    /// methods a path has). Every route of the API is added through here.
    func on<Output: ResponseGenerator>(_ router: Router<HeraldRequestContext>, _ method: HTTPRequest.Method, _ path: String,
                                       _ handler: @escaping @Sendable (Request, HeraldRequestContext) async throws -> Output) {
        add(method, path)
        router.on(RouterPath(path), method: method, use: handler)
    }

    func add(_ method: HTTPRequest.Method, _ path: String) {
        let segments = path.split(separator: "/")
        routes.withLock { routes in
            if let index = routes.firstIndex(where: { $0.segments == segments }) {
                routes[index].methods.append(method)
            } else {
                routes.append((segments, [method]))
            }
        }
    }

    /// The methods served at `path`; empty when no route matches it (`{id}` matches any segment).
    func methods(at path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/")
        return routes.withLock { routes in
            routes.first { route in
                route.segments.count == segments.count
                    && zip(route.segments, segments).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
            }?.methods ?? []
        }
    }
}

/// Answers every failure as `{"error": {"field", "message"}}`: an unknown path (404), a known
/// path with a wrong method (405 and `Allow`), Hummingbird's own errors, and anything unexpected
/// (500, logged with its cause).
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteTable
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Every answer says its Content-Type is meant: a JSON error is never sniffed into a page.
        do {
            var response = try await answer(request, context: context, next: next)
            response.headers[.xContentTypeOptions] = "nosniff"
            return response
        } catch var error as APIError {
            error.headers[.xContentTypeOptions] = "nosniff"
            // Every refusal is logged, with what was wrong (the answer says the same to the sender).
            logger.warning("request refused", metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(error.status.code)",
                "field": "\(error.field ?? "")", "reason": "\(error.message)",
            ])
            throw error
        }
    }

    private func answer(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as IntakeError {
            throw APIError(error)
        } catch let error as HTTPError where error.status == .notFound {
            let allowed = routes.methods(at: request.uri.path)
            guard !allowed.isEmpty else {
                throw APIError(.notFound, "no endpoint \(request.method) \(request.uri.path); the API's endpoints are listed in docs/api.md")
            }
            let names = allowed.map(\.rawValue).joined(separator: ", ")
            var refusal = APIError(.methodNotAllowed, "\(request.uri.path) answers \(names), not \(request.method)")
            refusal.headers[.allow] = names
            throw refusal
        } catch let error as HTTPError {
            throw APIError(error.status, error.body ?? error.status.reasonPhrase)
        } catch {
            logger.error("request failed", metadata: ["method": "\(request.method)", "path": "\(request.uri.path)",
                                                      "error": "\(error)"])
            throw APIError(.internalServerError, "Herald could not answer: \(error); the daemon's log has the details")
        }
    }
}

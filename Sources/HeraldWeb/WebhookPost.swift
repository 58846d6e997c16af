import AsyncHTTPClient
import Foundation
import HeraldCore

/// One POST of a JSON body to a webhook, bounded in time; throws unless it is answered 2xx.
/// The escalations of reminders and the fleet console's alarm notices both go out through it.
public enum WebhookPost {
    /// The longest a webhook may take to answer, body included.
    public static let deadline: Duration = .seconds(15)

    public static func send(_ body: [UInt8], to url: String, client: HTTPClient) async throws {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "herald")
        request.body = .bytes(body)
        let sent = request
        // One bound for the answer and its body: a webhook that stops sending holds nothing.
        let code = try await withDeadline(deadline, timeoutError: { HTTPClientError.deadlineExceeded }) {
            let response = try await client.execute(sent, timeout: .seconds(15))
            _ = try? await response.body.collect(upTo: 65_536)
            return Int(response.status.code)
        }
        guard (200..<300).contains(code) else { throw StatusError(code: code) }
    }

    public struct StatusError: Error, CustomStringConvertible {
        public var code: Int
        public var description: String { "the webhook answered HTTP \(code)" }
    }
}

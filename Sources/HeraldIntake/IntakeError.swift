import Foundation

/// Why the intake refused a body: what the HTTP API answers (`APIError` maps from it, the
/// status from `reason`) and what MQTT publishes as an `error` event.
public struct IntakeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of refusal, in the API's terms.
    public enum Reason: Sendable, Equatable {
        /// The body is not valid JSON, or a field is missing or wrong (400).
        case badRequest
        /// A signature is missing, wrong, stale or reused (401).
        case unauthorized
        /// The body is well formed but what it points to cannot be used: an `audio_url` that did not fetch (422).
        case unprocessable
    }

    public var reason: Reason
    /// The request field at fault, dotted (`payment.amount`); nil when the body as a whole is.
    public var field: String?
    public var message: String

    public init(_ reason: Reason = .badRequest, field: String?, _ message: String) {
        self.reason = reason
        self.field = field
        self.message = message
    }

    /// `field: message`, as the CLI prints a daemon's refusal.
    public var description: String { field.map { "\($0): \(message)" } ?? message }

    /// A 400: `field` is wrong, and `message` says how.
    public static func badRequest(_ field: String?, _ message: String) -> IntakeError {
        IntakeError(.badRequest, field: field, message)
    }
}

/// The API's error body, `{"error": {"field": "payment.amount", "message": "..."}}`: what the
/// server answers and what the CLI reads.
public struct ErrorBody: Codable, Sendable, Equatable {
    /// The field at fault (absent when the request as a whole is) and what was wrong.
    public struct Detail: Codable, Sendable, Equatable {
        public var field: String?
        public var message: String

        public init(field: String?, message: String) {
            self.field = field
            self.message = message
        }
    }

    public var error: Detail

    public init(error: Detail) { self.error = error }
}

import Foundation
import HeraldApp
import HeraldCore
import HeraldIntake

/// The FCM HTTP v1 send request (`POST /v1/projects/{project}/messages:send`): what the Firebase
/// Admin SDK sends, so a backend built for phones targets a hub by changing only its endpoint.
struct FCMSendRequest: Decodable {
    /// Only its presence is checked here; the message itself is read as a push payload.
    struct AnyMessage: Decodable {}
    var message: AnyMessage?
    var validateOnly: Bool?
}

/// FCM's answer: the message's resource name.
struct FCMSendResponse: Encodable, Sendable {
    var name: String
}

extension HeraldAPI {
    /// Validates and (unless `validate_only`) queues the message, answering as FCM does with
    /// `projects/{project}/messages/{id}`, the id being the announcement's; a repeated
    /// request_id answers the original's name and plays nothing.
    func fcmSend(project: String, body: [UInt8], client: String, signature: String?, trusted: Bool) async throws -> JSONResponse<FCMSendResponse> {
        let send = try decodeJSON(FCMSendRequest.self, from: body)
        guard send.message != nil else { throw APIError.badRequest("message", "is required: {\"message\": {\"token\": ..., \"data\": {...}}}") }
        let request = try await intake.request(from: body, format: .push, source: .push, client: client,
                                               signature: signature, trusted: trusted)
        if send.validateOnly == true {
            // Checked, not queued: FCM names no real message for a dry run either.
            return JSONResponse(value: FCMSendResponse(name: "projects/\(project)/messages/validate_only"))
        }
        switch try await daemon.submit(request) {
        case .accepted(let record), .duplicate(let record):
            return JSONResponse(value: FCMSendResponse(name: "projects/\(project)/messages/\(record.id)"))
        case .refused(_, let limit):
            throw APIError(.serviceUnavailable, "the queue holds \(limit) announcements; try again later")
        }
    }
}

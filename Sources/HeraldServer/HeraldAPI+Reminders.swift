import Foundation
import HeraldApp
import HeraldCore
import HeraldIntake
import HTTPTypes
import Hummingbird

/// `POST /v1/reminders`: what to say (as an announcement: `text` or `clip`, `priority`, `lang`,
/// `voice`) and when (`time_zone`, `schedule`, `repeat`, `escalate`).
struct ReminderPayload: Decodable {
    struct Schedule: Decodable {
        var at: String?
        var daily: [String]?
        var days: [String]?
        var every: String?
        var from: String?
        var until: String?
    }

    struct Repeat: Decodable {
        var every: String?
        var times: Int?
    }

    var text: String?
    var clip: String?
    var priority: String?
    var lang: String?
    var voice: String?
    var timeZone: String?
    var schedule: Schedule?
    var `repeat`: Repeat?
    var escalate: String?
    /// Room and group names, checked as an announcement's `rooms`.
    var rooms: [String]?

    var draft: ReminderDraft {
        var draft = ReminderDraft()
        draft.priority = priority
        draft.timeZone = timeZone
        draft.schedule = schedule.map { given in
            var parts = ReminderDraft.Schedule()
            parts.at = given.at
            parts.daily = given.daily
            parts.days = given.days
            parts.every = given.every
            parts.from = given.from
            parts.until = given.until
            return parts
        }
        draft.hasRepeat = `repeat` != nil
        draft.repeatEvery = `repeat`?.every
        draft.repeatTimes = `repeat`?.times
        draft.escalate = escalate
        return draft
    }
}

/// `POST /v1/reminders/{id}/ack`: optionally who answered.
struct AckPayload: Decodable {
    var by: String?
}

/// What `/v1/status` shows of reminders.
struct ReminderStatus: Encodable, Sendable {
    struct Due: Encodable, Sendable {
        var id: String
        var text: String
        var due: Date
    }

    var next: [Due]
    var waitingForAck: [ReminderService.Listing]
}

extension HeraldAPI {
    func addReminderRoutes(_ router: Router<HeraldRequestContext>, routes: RouteTable, limit: @escaping @Sendable () -> Int) {
        routes.on(router, .post, "/v1/reminders") { request, context in
            let bytes = try await collectBody(request, limit: limit())
            let payload = try decodeJSON(ReminderPayload.self, from: bytes)
            let service = try requireReminders()
            let reminder = try await makeReminder(from: payload, origin: .api)
            // A reminder is said later by the daemon itself: a kind that must be signed is
            // signed when it is created.
            _ = try await intake.checkSignature(request.headers[Self.signatureField], over: bytes,
                                          kind: payload.clip == nil ? .text : .clip, trusted: context.overLocalSocket,
                                          owner: nil, keptByRow: false, via: "http")
            try intake.refusePaymentWording(payload.text ?? "", trusted: context.overLocalSocket || request.headers[Self.signatureField] != nil,
                                            via: "http")
            return JSONResponse(status: .created, value: try await service.add(reminder))
        }
        routes.on(router, .get, "/v1/reminders") { _, _ in JSONResponse(value: try await requireReminders().list()) }
        routes.on(router, .get, "/v1/reminders/upcoming") { request, _ in
            let limit = try request.uri.queryParameters["limit"].map { value -> Int in
                guard let limit = Int(value), (1...100).contains(limit) else { throw APIError.badRequest("limit", "must be 1 to 100") }
                return limit
            } ?? 10
            let upcoming = try await requireReminders().upcoming(limit: limit)
            return JSONResponse(value: upcoming.map { ReminderStatus.Due(id: $0.reminder.id, text: $0.reminder.body, due: $0.due) })
        }
        // The caregiver's week: per reminder and calendar, on time, late, missed, acknowledged.
        routes.on(router, .get, "/v1/reminders/report") { request, _ in
            let days = try request.uri.queryParameters["days"].map { value -> Int in
                guard let days = Int(value), (1...366).contains(days) else { throw APIError.badRequest("days", "must be 1 to 366") }
                return days
            } ?? 7
            return JSONResponse(value: try await requireReminders().report(days: days))
        }
        // Each calendar, its last read and what it will say next (`calendars:`).
        routes.on(router, .get, "/v1/calendars") { _, _ in
            guard let calendars else { throw APIError(.serviceUnavailable, "calendars are not running in this server") }
            return JSONResponse(value: ["calendars": await calendars.list()])
        }
        routes.on(router, .get, "/v1/reminders/{id}") { _, context in
            let id = try context.pathID()
            guard let listing = try await requireReminders().listing(id: id) else {
                throw APIError(.notFound, field: "id", "no reminder '\(id)'")
            }
            return JSONResponse(value: listing)
        }
        routes.on(router, .delete, "/v1/reminders/{id}") { _, context in
            let id = try context.pathID()
            do { try await requireReminders().remove(id: id) } catch let refusal as ReminderService.Refusal {
                throw Self.apiError(refusal)
            }
            return JSONResponse(value: ["deleted": id])
        }
        routes.on(router, .post, "/v1/reminders/{id}/ack") { request, context in
            let id = try context.pathID()
            let bytes = try await collectBody(request, limit: limit())
            var by = context.client
            if !bytes.isEmpty {
                let payload = try decodeJSON(AckPayload.self, from: bytes)
                if let name = payload.by {
                    guard !name.isEmpty, name.count <= 100,
                          name.unicodeScalars.allSatisfy({ ![.control, .format].contains($0.properties.generalCategory) }) else {
                        throw APIError.badRequest("by", "must be 1 to 100 characters without control characters, like Anna")
                    }
                    by = name
                }
            }
            do {
                return JSONResponse(value: try await requireReminders().acknowledge(id: id, by: by))
            } catch let refusal as ReminderService.Refusal {
                throw Self.apiError(refusal)
            }
        }
    }

    func requireReminders() throws -> ReminderService {
        guard let reminders else { throw APIError(.serviceUnavailable, "reminders are not running in this server") }
        return reminders
    }

    /// Checks a body like `POST /v1/announcements` does (the same validator: text, clip, voice,
    /// language), then its timing; nothing is stored unless all of it is good.
    func makeReminder(from payload: ReminderPayload, origin: Reminder.Origin) async throws -> Reminder {
        guard (payload.text == nil) != (payload.clip == nil) else {
            throw APIError.badRequest(nil, "give exactly one of text, clip")
        }
        let announcement = try await intake.validator.request(from: NativeAnnouncement(
            text: payload.text, clip: payload.clip, priority: payload.priority, lang: payload.lang, voice: payload.voice,
            rooms: payload.rooms),
            source: .reminder)
        let checked: ReminderDraft.Checked
        do { checked = try payload.draft.check(now: Date()) } catch { throw APIError.badRequest(error.field, error.message) }
        let (kind, body): (BodyKind, String)
        switch announcement.body {
        case .file(let path): (kind, body) = (.file, path)
        case .text(let text): (kind, body) = (.text, text)
        case .payment, .audioURL, .fetchedAudio: throw APIError.badRequest(nil, "give exactly one of text, clip")
        }
        return Reminder(bodyKind: kind, body: body, priority: checked.priority, language: announcement.language,
                        voice: announcement.voice, timeZone: checked.timeZone, schedule: checked.schedule,
                        repeats: checked.repeats, escalate: checked.escalate, origin: origin, createdAt: Date(),
                        rooms: announcement.rooms)
    }

    static func apiError(_ refusal: ReminderService.Refusal) -> APIError {
        switch refusal {
        case .unknown(let id):
            APIError(.notFound, field: "id", "no reminder '\(id)'; GET /v1/reminders lists them")
        case .notWaiting(let id):
            APIError.badRequest("id", "reminder \(id) is not waiting for an acknowledgement (it has not been said since the last one, or has no repeat)")
        case .ownedByConfig(let id):
            APIError(.conflict, field: "id", "reminder \(id) comes from the config file (reminders.list); remove it there and reload")
        case .ownedByCalendar(let id):
            APIError(.conflict, field: "id", "reminder \(id) is an event of a calendar (calendars:); change or delete the event in the calendar")
        }
    }

    func reminderStatus() async -> ReminderStatus? {
        guard let reminders else { return nil }
        let next = await reminders.upcoming(limit: 5).map { ReminderStatus.Due(id: $0.reminder.id, text: $0.reminder.body, due: $0.due) }
        return ReminderStatus(next: next, waitingForAck: await reminders.waiting())
    }
}

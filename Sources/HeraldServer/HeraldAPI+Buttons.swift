import Foundation
import HeraldApp
import HeraldCore
import HeraldStore
import HTTPTypes
import Hummingbird

extension HeraldAPI {
    /// A button's presses over HTTP, the buttons and their last presses, and the day's payments.
    func addButtonRoutes(_ router: Router<HeraldRequestContext>, routes: RouteTable) {
        // Anything that can call a URL (a Shelly button, a Home Assistant automation, a phone
        // shortcut) presses a button here, with the announce role.
        routes.on(router, .post, "/v1/buttons/{name}/{event}") { _, context in
            guard let buttons else { throw APIError(.serviceUnavailable, "buttons are not running in this server") }
            let name = try context.parameters.require("name"), event = try context.parameters.require("event")
            guard name.count <= 64, event.count <= 64 else { throw APIError.badRequest("name", "a button's name and event are at most 64 characters") }
            let press = await buttons.press(name, event: event, via: "http", trusted: context.overLocalSocket)
            switch ButtonService.Result(rawValue: press.result) {
            case .done?, .nothing?: return JSONResponse(value: press)
            case .refused?: throw APIError(.forbidden, field: "event", press.detail)
            case .failed?: throw APIError(.serviceUnavailable, press.detail)
            case .ignored?, nil:
                if press.action != nil { throw APIError(.tooManyRequests, field: "event", press.detail + "; pressed once a second at most") }
                if buttons.button(named: name) == nil { throw APIError(.notFound, field: "name", press.detail) }
                throw APIError(.unprocessableContent, field: "event", press.detail)
            }
        }
        // The buttons in the config and the last presses, newest first.
        routes.on(router, .get, "/v1/buttons") { request, _ in
            let limit = try request.uri.queryParameters["limit"].map { value -> Int in
                guard let limit = Int(value), (1...1000).contains(limit) else { throw APIError.badRequest("limit", "must be 1 to 1000") }
                return limit
            } ?? 50
            let buttons = self.context.configuration.buttons.map { button in
                ButtonListing(name: button.name, mqtt: button.mqttTopic, field: button.field, room: button.room,
                              actions: button.actions.mapValues(\.rawValue))
            }
            return JSONResponse(value: ButtonsAnswer(buttons: buttons, presses: try await self.context.database.presses(limit: limit)))
        }
        // The day's payments (or since `since`), per currency, from the log.
        routes.on(router, .get, "/v1/payments/total") { request, _ in
            let now = Date()
            let since = try request.uri.queryParameters["since"].map { value -> Date in
                guard let date = ISO8601DateFormatter().date(from: String(value)) else {
                    throw APIError.badRequest("since", "'\(value)' is not an ISO 8601 time like 2026-11-22T00:00:00Z")
                }
                return date
            } ?? PaymentTotals.startOfDay(now, in: self.context.configuration.quietHours.timeZone)
            guard since <= now else { throw APIError.badRequest("since", "is in the future") }
            return JSONResponse(value: try await self.context.store.paymentTotals(since: since, until: now))
        }
    }

    struct ButtonListing: Encodable, Sendable {
        var name: String
        var mqtt: String?
        var field: String
        var room: String?
        var actions: [String: String]
    }

    struct ButtonsAnswer: Encodable, Sendable {
        var buttons: [ButtonListing]
        var presses: [ButtonPress]
    }
}

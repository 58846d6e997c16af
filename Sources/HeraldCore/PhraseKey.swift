import Foundation

/// One of the fixed sentences a language's phrase table holds, as `speech.phrases.<lang>.<key>`
/// names it in the config file.
///
/// The word between an amount's major and minor parts ("and", "con") is not one of them: it is
/// part of the amount's grammar, checked by the tests that parse amounts back with ICU.
public enum PhraseKey: String, Sendable, CaseIterable {
    /// "Payment received: {amount}".
    case payment
    /// "{count} payments received, total {amount}".
    case summary
    /// "While it was quiet:", before the texts quiet hours held.
    case quiet
    /// "Herald is ready.": `POST /v1/test` and the admin page's test button.
    case test
    /// A calendar's event ahead: "In {when}: {event}, at {time}".
    case appointment
    /// A calendar's event at its start (or an alarm after it): "Now: {event}".
    case appointmentNow = "appointment_now"
    /// An all-day event on its morning: "Today: {event}".
    case appointmentToday = "appointment_today"
    /// An all-day event the day before: "Tomorrow: {event}".
    case appointmentTomorrow = "appointment_tomorrow"
    /// A button's `ack`: "Thank you."
    case thankYou = "thank_you"
    /// A button's `ack` with no reminder waiting: "Nothing is waiting."
    case nothingWaiting = "nothing_waiting"
    /// A button's `repeat` with nothing to say again: "Nothing to repeat."
    case nothingToRepeat = "nothing_to_repeat"
    /// A button's `total`, per currency: "Payments today: {count}, total {amount}".
    case paymentsToday = "payments_today"
    /// A button's `total` with none: "No payments today."
    case noPaymentsToday = "no_payments_today"
    /// A button's `help`: "Help is needed: {where}".
    case helpCall = "help_call"
    /// A button's `quiet`: "Quiet for {when}."
    case quietFor = "quiet_for"
    /// A button's `volume_up` or `volume_down`, said at the new level: "Volume {level}."
    case volume

    /// The placeholders its template must hold, each exactly once.
    public var placeholders: [String] {
        switch self {
        case .payment: ["{amount}"]
        case .summary: ["{count}", "{amount}"]
        case .quiet, .test, .thankYou, .nothingWaiting, .nothingToRepeat, .noPaymentsToday: []
        case .paymentsToday: ["{count}", "{amount}"]
        case .helpCall: ["{where}"]
        case .quietFor: ["{when}"]
        case .volume: ["{level}"]
        case .appointment: ["{when}", "{event}", "{time}"]
        case .appointmentNow, .appointmentToday, .appointmentTomorrow: ["{event}"]
        }
    }

    /// What is wrong with `template` as this phrase, or nil when it is fine.
    public func problem(in template: String) -> String? {
        guard !template.trimmingCharacters(in: .whitespaces).isEmpty else { return "must not be empty" }
        let wanted = placeholders.isEmpty ? "no placeholder" : placeholders.joined(separator: " and ")
        for found in Self.placeholders(in: template) where !placeholders.contains(found) {
            return "'\(found)' is not a placeholder of the \(rawValue) phrase; it takes \(wanted)"
        }
        for placeholder in placeholders where template.components(separatedBy: placeholder).count != 2 {
            return "'\(template)' must contain \(placeholder) exactly once"
        }
        return nil
    }

    /// Every `{word}` in `text`.
    static func placeholders(in text: String) -> [String] {
        var found: [String] = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            found.append(String(rest[open...close]))
            rest = rest[rest.index(after: close)...]
        }
        return found
    }
}

import Foundation
import HeraldCore
import HeraldStore

extension ButtonService {
    /// How a call for help is said again until someone answers: every 2 minutes, 15 more times.
    static let helpRepeats = ReminderRepeat(every: .seconds(120), times: 15)

    /// A call for help: a critical reminder said now in every room and again until acknowledged
    /// (a press of `ack`, `herald remind ack`, the API), sent at once to `reminders.escalate`; the
    /// heartbeat carries it to the fleet console, which opens a `help` alarm.
    func help(_ button: ButtonSettings) async -> (ButtonService.Result, String) {
        guard let reminders else { return (.failed, "reminders are not running in this server: the call for help is not said") }
        let moment = now()
        let text = phrases.helpCall.replacingOccurrences(of: "{where}", with: button.place)
        // Due in one to two seconds, in whole UTC seconds, as a calendar's firings are: at least a
        // second ahead of the moment the reminder service stores it, or `once` has no due time
        // left and the call would never be said.
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let due = Date(timeIntervalSince1970: moment.timeIntervalSince1970.rounded(.down) + 2)
        let parts = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: due)
        let escalate = context.configuration.reminders.escalate
        let reminder = Reminder(
            id: "help:\(button.name):\(Int(moment.timeIntervalSince1970))", bodyKind: .text, body: text, priority: .critical,
            timeZone: "UTC",
            schedule: .once(day: DateComponents(year: parts.year, month: parts.month, day: parts.day),
                            time: LocalTime(hour: parts.hour ?? 0, minute: parts.minute ?? 0, second: parts.second ?? 0)),
            repeats: Self.helpRepeats, escalate: escalate, origin: .button, createdAt: moment, rooms: [RoomSettings.allGroup])
        // The caregiver first: the reminder's store and render take a moment, the webhook must not wait.
        if let url = escalate {
            let event = Escalator.Event(event: "help.called", reminder: reminder.id, text: text, due: moment, outcome: "help",
                                        priority: Priority.critical.rawValue, sentAt: moment)
            let escalator = Escalator(database: context.database, client: context.httpClient,
                                      attempts: context.configuration.reminders.escalateAttempts, logger: logger)
            // Beside the announcement, never in its way (the escalator retries with backoff).
            Task { HeraldMetrics.reminderEscalated(delivered: await escalator.send(event, to: url)) }
        } else {
            logger.warning("button \(button.name) called for help, and reminders.escalate is not set: it is said in every room, and no one is told elsewhere")
        }
        do {
            _ = try await reminders.add(reminder)
        } catch {
            return (.failed, "could not store the call for help: \(error)\(escalate.map { "; sent to \($0)" } ?? "")")
        }
        return (.done, "help called (\(reminder.id)): said in every room until acknowledged, "
                    + (escalate.map { "sent to \($0)" } ?? "no reminders.escalate to tell"))
    }
}

import Foundation
import HeraldConfig
import HeraldCore
import HeraldStore
import Speech

extension ButtonService {
    /// Does `action` and says how it went, in a sentence for the log.
    func carryOut(_ action: ButtonAction, of button: ButtonSettings, trusted: Bool) async -> (Result, String) {
        switch action {
        case .ack: return await acknowledge(button)
        case .repeat: return await sayAgain(button, payment: false, trusted: trusted)
        case .repeatPayment: return await sayAgain(button, payment: true, trusted: trusted)
        case .total: return await total(button)
        case .help: return await help(button)
        case .quiet:
            // The answer first: said while the hold would keep it back.
            let phrases = self.phrases
            let words = Duration.seconds(button.quietFor.inSeconds).formatted(.units(allowed: [.hours, .minutes], width: .wide)
                .locale(Locale(identifier: speechLanguage)))
            await say(phrases.quietFor.replacingOccurrences(of: "{when}", with: words), for: button)
            let end = await daemon.holdQuiet(for: button.quietFor)
            return (.done, "everything but critical held until \(end.formatted(.iso8601)), said after")
        case .volumeUp: return await changeVolume(button, by: 1)
        case .volumeDown: return await changeVolume(button, by: -1)
        }
    }

    var speechLanguage: String { context.configuration.speech.language }
    var phrases: PhraseTable { context.configuration.speech.phrases(for: speechLanguage) }

    /// Says `text` for `button`: in its room (else the house's default rooms), `high`, so an answer
    /// comes before the queue's normal traffic.
    @discardableResult
    func say(_ text: String, for button: ButtonSettings, priority: Priority = .high) async -> String? {
        var request = AnnouncementRequest(body: .text(text), priority: priority, source: .button, client: button.name)
        request.rooms = button.room.map { [$0] }
        return await submit(request)
    }

    /// Queues `request`; the row's id, nil when it was not taken (logged).
    func submit(_ request: AnnouncementRequest) async -> String? {
        do {
            switch try await daemon.submit(request) {
            case .accepted(let record): return record.id
            case .duplicate(let record): return record.id
            case .refused(_, let limit):
                logger.warning("button \(request.client): the queue is full (\(limit) waiting); its answer is not said")
                return nil
            }
        } catch {
            logger.error("button \(request.client): could not queue its answer: \(error)")
            return nil
        }
    }

    /// Whether reminder `listing` is said in `room` (nil: any room).
    func isIn(_ room: String?, _ reminder: Reminder) -> Bool {
        guard let room else { return true }
        let house = context.configuration.rooms
        let rooms = (try? house.rooms(requested: reminder.rooms, priority: reminder.priority)) ?? []
        return rooms.contains { $0.name == room }
    }

    private func acknowledge(_ button: ButtonSettings) async -> (Result, String) {
        guard let reminders else { return (.failed, "reminders are not running in this server") }
        let waiting = await reminders.waiting().filter { isIn(button.room, $0.reminder) }
        guard !waiting.isEmpty else {
            await say(phrases.nothingWaiting, for: button)
            return (.nothing, "no reminder was waiting for an answer\(button.room.map { " in \($0)" } ?? "")")
        }
        var acknowledged: [String] = []
        for listing in waiting {
            do {
                _ = try await reminders.acknowledge(id: listing.reminder.id, by: "button:\(button.name)")
                acknowledged.append(listing.reminder.id)
            } catch {
                logger.warning("button \(button.name): reminder \(listing.reminder.id) could not be acknowledged: \(error)")
            }
        }
        guard !acknowledged.isEmpty else { return (.failed, "none of the waiting reminders could be acknowledged (see the log)") }
        await say(phrases.thankYou, for: button)
        return (.done, "acknowledged \(acknowledged.joined(separator: ", "))")
    }

    private func sayAgain(_ button: ButtonSettings, payment: Bool, trusted: Bool) async -> (Result, String) {
        let store = context.store
        let id: String?
        if payment {
            if let last = await daemon.lastPayment { id = last } else {
                let rows = (try? await store.announcements(since: nil, outcome: .played, limit: 200)) ?? []
                id = rows.first { $0.bodyKind == .payment && $0.replayOf == nil }?.id
            }
        } else if let last = await daemon.lastPlayed {
            id = last
        } else {
            id = (try? await store.announcements(since: nil, outcome: .played, limit: 1))?.first?.id
        }
        guard let id, let record = try? await store.announcement(id: id),
              var request = AnnouncementRequest(record: record, currency: context.configuration.speech.currency, now: now()) else {
            await say(phrases.nothingToRepeat, for: button)
            return (.nothing, payment ? "no payment has been said yet" : "nothing has been said yet")
        }
        // A payment said again by a press from the network would be a payment no backend signed.
        // The API's replay refuses the same: a payment, a signed row, a text that says a payment
        // (a summary of payments is logged as text).
        let saysAPayment: Bool = if case .text(let text) = request.body {
            PaymentWording.cached(overrides: context.configuration.speech.phraseOverrides).template(saidBy: text) != nil
        } else { false }
        if !trusted, context.configuration.api.requireSignature.contains(.payment),
           record.bodyKind == .payment || record.signedBy != nil || saysAPayment {
            return (.refused, "payments must be signed (api.require_signature): a press over HTTP from another machine does not say one again; use the button's MQTT topic or this machine")
        }
        request.requestID = nil
        request.replayOf = record.id
        request.signedBy = nil
        request.signatureMAC = nil
        request.source = .button
        request.client = button.name
        if let room = button.room { request.rooms = [room] }
        guard let said = await submit(request) else { return (.failed, "the queue did not take the repeat of \(record.id)") }
        return (.done, "said \(record.id) again as \(said)")
    }

    private func total(_ button: ButtonSettings) async -> (Result, String) {
        let moment = now()
        let zone = context.configuration.quietHours.timeZone
        do {
            let totals = try await context.store.paymentTotals(since: PaymentTotals.startOfDay(moment, in: zone), until: moment)
            let text = PaymentTotalWording.text(totals, language: speechLanguage, phrases: phrases)
            await say(text, for: button)
            let figures = totals.totals.map { "\($0.count) \($0.currency) \($0.amount)" }.joined(separator: ", ")
            return (totals.count == 0 ? .nothing : .done, "today's total: \(totals.count) payment(s)\(figures.isEmpty ? "" : ": " + figures)")
        } catch {
            return (.failed, "could not read today's payments from the log: \(error)")
        }
    }

    private func changeVolume(_ button: ButtonSettings, by direction: Int) async -> (Result, String) {
        let house = context.configuration.rooms
        let rooms = button.room.flatMap { house.room(named: $0) }.map { [$0] } ?? house.rooms
        var levels: [String] = []
        var level = 0
        for room in rooms {
            let current = context.roomVolumes.percent(of: room.name) ?? room.safeguard.targetVolume.percent
            level = RoomVolumes.stepped(current, by: direction, max: room.safeguard.maxVolume)
            // Decided before the write is awaited: a press of another button meanwhile steps from
            // this level, not from the one before it.
            context.roomVolumes.set(level, for: room.name)
            do { try await context.database.setRoomVolume(room.name, percent: level) } catch {
                logger.error("button \(button.name): the volume of \(room.name) is \(level)% until a restart; it could not be kept: \(error)")
                return (.failed, "could not keep the volume of \(room.name) (\(level)% until a restart): \(error)")
            }
            levels.append("\(room.name) \(current)% -> \(level)%")
        }
        let percent = (Double(level) / 100).formatted(.percent.locale(Locale(identifier: speechLanguage)))
        await say(phrases.volume.replacingOccurrences(of: "{level}", with: percent), for: button)
        return (.done, "volume \(levels.joined(separator: ", "))")
    }
}

import Foundation
import HeraldCore
import Speech

/// Several entries said as one: payments piling up, and the texts quiet hours held. Each original
/// is logged `coalesced` with the summary's id.
extension AnnouncementDaemon {
    /// Why several entries are said as one.
    enum SummaryOccasion {
        /// More payments waiting than `coalesce_payments_over`: said first, in the payments' place.
        case payments
        /// Quiet hours ended with several deferred texts: queued now, its max age counted from now.
        case quietHoursEnded
    }

    /// More payments waiting than `coalesce_payments_over`: one summary says them all.
    func coalescePayments() async {
        // A payment quiet hours left for some of its rooms is said alone: a summary would go to
        // other rooms, or leave it none to wait for.
        let taken = machine.turns.takePaymentsToCoalesce(over: context.configuration.queue.coalescePaymentsOver) {
            if case .payment = $0.request.body { return $0.rooms == nil && $0.laterRooms.isEmpty } else { return false }
        }
        guard let first = taken.first?.item.request else { return }
        let amounts: [Amount] = taken.compactMap {
            if case .payment(let amount) = $0.item.request.body { amount } else { nil }
        }
        // Wholly in English for a language with no phrases of its own, as each payment would be.
        let speech = context.configuration.speech
        let asked = first.language ?? speech.language, language = speech.paymentLanguage(for: asked)
        guard let summary = PaymentSummary(amounts: amounts, language: language,
                                           phrases: speech.phrases(for: language)) else {
            for entry in taken { machine.turns.putBack(entry) }
            return
        }
        // In the place of the most urgent payment it covers (high when a till sent any as high).
        let priority = Priority.mostUrgent(of: taken.map(\.priority)) ?? .high
        await sayAsOne(taken, text: summary.text, priority: priority, occasion: .payments,
                       language: language == asked ? nil : language)
    }

    /// Says `entries` as one text: logs the summary's row, queues it, and logs each original
    /// `coalesced`. When the summary cannot be logged, the entries are said one by one.
    /// The entries stay pending in the machine (held) until each is logged or queued again.
    /// - Parameters:
    ///   - rooms: where the summary is said (the rooms its entries share); nil for the
    ///     priority's or the house's default rooms.
    ///   - language: the summary's language when it is not the first entry's.
    func sayAsOne(_ entries: [Entry], text: String, priority: Priority, occasion: SummaryOccasion, rooms: [String]? = nil,
                  language: String? = nil) async {
        let first = entries[0].item.request
        // A payment's voice is not asked for by its sender: the summary takes the default.
        var request = AnnouncementRequest(body: .text(text), priority: priority, source: first.source,
                                          language: language ?? first.language, voice: occasion == .payments ? nil : first.voice)
        request.chime = first.chime
        request.rooms = rooms
        let summary = Turn.record(for: request, at: now())
        let store = context.store
        do {
            _ = try await store.insertIfNew(summary)
        } catch {
            switch occasion {
            case .payments:
                logger.error("could not log the payment summary, playing the payments one by one: \(error)")
                for entry in entries { machine.turns.putBack(entry) }
            case .quietHoursEnded:
                logger.error("could not log the quiet-hours summary, saying them one by one: \(error)")
                for var entry in entries {
                    entry.queuedAt = now()
                    await enqueue(entry)
                }
            }
            return
        }
        switch occasion {
        case .payments:
            // In the place of the oldest payment it says, not ahead of what waited before it.
            machine.turns.putBack(Self.entry(id: summary.id, priority: priority, queuedAt: entries[0].queuedAt,
                                   item: Queued(request: request, record: summary, summarisesPayments: true, store: store)))
            await logCoalesced(entries, into: "summary \(summary.id)")
        case .quietHoursEnded:
            await enqueue(Self.entry(id: summary.id, priority: priority, queuedAt: now(),
                                item: Queued(request: request, record: summary, store: store)))
            await logCoalesced(entries, into: "summary \(summary.id) when quiet hours ended")
        }
    }

    /// Logs `entries` as said in a summary (`into`: which one, and when).
    func logCoalesced(_ entries: [Entry], into summary: String) async {
        // An entry withdrawn while the summary was logged (its own row could not be inserted) is
        // no longer pending: logging it would write a row its sender was told does not exist.
        for entry in entries where machine.isPending(id: entry.id) {
            var record = entry.item.record
            record.outcome = .coalesced
            record.error = "said in \(summary)"
            record.finishedAt = now()
            await log(record, in: entry.item.store)
        }
    }
}

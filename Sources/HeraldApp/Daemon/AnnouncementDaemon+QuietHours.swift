import Foundation
import HeraldCore

extension AnnouncementDaemon {
    /// What quiet hours made of an incoming entry.
    enum QuietDecision {
        /// On to the queue (perhaps marked to play quieter).
        case queue
        /// Suppressed (its row has the outcome) or deferred (its row waits): not queued now.
        case held(AnnouncementRecord)
    }

    /// Quiet hours decide before the queue (DESIGN.md "Priorities"): `suppress` logs
    /// `suppressed_quiet`, `defer` holds the entry until the window ends, `play_quieter` marks it
    /// with the quiet target volume; critical always plays.
    func applyQuietHours(to entry: inout Entry) async -> QuietDecision {
        let quiet = context.configuration.quietHours
        let now = self.now()
        switch quiet.policy(for: entry.priority, at: now) {
        case nil, .play?:
            return .queue
        case .playQuieter?:
            entry.item.quietTarget = quiet.targetVolume
            return .queue
        case .suppress?:
            var record = entry.item.record
            record.outcome = .suppressedQuiet
            record.error = "quiet hours (\(quiet.windows.map(\.description).joined(separator: ", "))): \(entry.priority.rawValue) is suppressed"
            record.finishedAt = now
            await log(record)
            return .held(record)
        case .defer?:
            logger.notice("announcement \(entry.id) deferred to the end of quiet hours")
            machine.holdDeferred(entry)
            scheduleDeferredRelease()
            return .held(entry.item.record)
        }
    }

    /// When quiet hours end, what they held goes to the queue in arrival order; several texts
    /// are said as one summary, each original logged `coalesced` with the summary's id.
    func releaseDeferred() async {
        let now = self.now()
        guard !context.configuration.quietHours.isQuiet(at: now) else {
            scheduleDeferredRelease()
            return
        }
        let held = machine.takeDeferred()
        guard !held.isEmpty else { return }
        logger.notice("quiet hours ended: \(held.count) deferred announcement(s) go to the queue")
        let texts = held.compactMap { entry -> String? in
            if case .text(let text) = entry.item.request.body { text } else { nil }
        }
        if held.count > 1, texts.count == held.count {
            let sentences = texts.map { $0.hasSuffix(".") || $0.hasSuffix("!") || $0.hasSuffix("?") ? $0 : $0 + "." }
            await sayAsOne(held, text: "While it was quiet: " + sentences.joined(separator: " "),
                           priority: Priority.mostUrgent(of: held.map(\.priority)) ?? .normal,
                           occasion: .quietHoursEnded)
            return
        }
        for var entry in held {
            // Its max age counts from now: it waited on purpose.
            entry.queuedAt = now
            await enqueue(entry)
        }
    }

    /// Queues an entry released from quiet hours; a full queue logs it `failed`.
    func enqueue(_ entry: Entry) async {
        let (admission, interrupt) = machine.submit(entry)
        if interrupt { playing?.cancel() }
        if case .refusedFull(let limit) = admission {
            var record = entry.item.record
            record.outcome = .failed
            record.error = "queue full (\(limit) waiting) when quiet hours ended"
            record.finishedAt = now()
            await log(record)
        }
        wake.yield()
    }

    /// Wakes when the quiet hours holding deferred entries end (again after a reload).
    func scheduleDeferredRelease() {
        deferredRelease?.cancel()
        guard machine.deferredCount > 0, !machine.stopping else { return }
        let now = self.now()
        let end = context.configuration.quietHours.end(after: now) ?? now
        let sleep = self.sleep
        deferredRelease = Task { [weak self] in
            let delay = max(0, end.timeIntervalSince(now)) + 0.01
            guard (try? await sleep(.seconds(delay))) != nil else { return }
            await self?.releaseDeferred()
        }
    }

}

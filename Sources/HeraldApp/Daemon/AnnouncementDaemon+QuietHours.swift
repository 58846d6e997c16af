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
        let now = Date()
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
            holdDeferred(entry)
            return .held(entry.item.record)
        }
    }

    /// When quiet hours end, what they held goes to the queue in arrival order; several texts
    /// are said as one summary, each original logged `coalesced` with the summary's id.
    func releaseDeferred() async {
        let now = Date()
        guard !context.configuration.quietHours.isQuiet(at: now) else {
            scheduleDeferredRelease()
            return
        }
        let held = takeDeferred()
        guard !held.isEmpty else { return }
        logger.notice("quiet hours ended: \(held.count) deferred announcement(s) go to the queue")
        let texts = held.compactMap { entry -> String? in
            if case .text(let text) = entry.item.request.body { text } else { nil }
        }
        if held.count > 1, texts.count == held.count {
            await submitSummary(of: held, texts: texts)
            return
        }
        for var entry in held {
            // Its max age counts from now: it waited on purpose.
            entry.queuedAt = now
            await enqueue(entry)
        }
    }

    private func submitSummary(of held: [Entry], texts: [String]) async {
        let first = held[0].item.request
        let sentences = texts.map { $0.hasSuffix(".") || $0.hasSuffix("!") || $0.hasSuffix("?") ? $0 : $0 + "." }
        var request = AnnouncementRequest(body: .text("While it was quiet: " + sentences.joined(separator: " ")),
                                          priority: held.map(\.priority).min { Self.rank($0) < Self.rank($1) } ?? .normal,
                                          source: first.source, language: first.language, voice: first.voice)
        request.chime = first.chime
        let summary = Announcer.record(for: request)
        do {
            _ = try await context.store.insertIfNew(summary)
        } catch {
            logger.error("could not log the quiet-hours summary, saying them one by one: \(error)")
            for var entry in held {
                entry.queuedAt = Date()
                await enqueue(entry)
            }
            return
        }
        await enqueue(Entry(id: summary.id, priority: request.priority, queuedAt: Date(),
                          item: Queued(request: request, record: summary)))
        await logCoalesced(held, into: "summary \(summary.id) when quiet hours ended")
    }

    private static func rank(_ priority: Priority) -> Int { Priority.allCases.firstIndex(of: priority) ?? 0 }
}

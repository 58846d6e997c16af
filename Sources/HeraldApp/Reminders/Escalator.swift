import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldStore
import HeraldWeb
import Logging

/// Tells a caregiver: POSTs a JSON event to a webhook, retried with backoff, each attempt logged
/// in the `escalation` table. Runs beside speech, never in its way.
public struct Escalator: Sendable {
    /// The JSON a webhook receives.
    public struct Event: Codable, Sendable, Equatable {
        public var event: String
        public var reminder: String
        public var text: String
        public var due: Date
        /// `unacknowledged` or `missed`.
        public var outcome: String
        public var priority: String
        public var sentAt: Date

        enum CodingKeys: String, CodingKey {
            case event, reminder, text, due, outcome, priority
            case sentAt = "sent_at"
        }
    }

    let database: AppDatabase
    /// The daemon's client; nil: nothing is sent (every attempt fails and is logged).
    let client: HTTPClient?
    let attempts: Int
    /// The first retry waits this long, then twice as long each time.
    let firstBackoff: Duration
    let logger: Logger

    public init(database: AppDatabase, client: HTTPClient?, attempts: Int, firstBackoff: Duration = .seconds(1), logger: Logger) {
        self.database = database
        self.client = client
        self.attempts = attempts
        self.firstBackoff = firstBackoff
        self.logger = logger
    }

    /// Sends `event` to `url` until it is answered 2xx or the attempts run out; true when delivered.
    /// The row (with the body) is saved before the first attempt: a stop in between leaves it to
    /// `resume` at the next start.
    @discardableResult
    public func send(_ event: Event, to url: String) async -> Bool {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        guard let body = try? encoder.encode(event) else { return false }
        var row = EscalationRecord(reminderID: event.reminder, dueAt: event.due, reason: event.outcome, url: url,
                                   body: String(decoding: body, as: UTF8.self))
        row = (try? await database.saveEscalation(row)) ?? row
        return await deliver(row)
    }

    /// Goes on with a delivery a stop cut off, from the attempt it had reached.
    @discardableResult
    public func resume(_ row: EscalationRecord) async -> Bool {
        logger.notice("resuming an escalation cut off by the last stop",
                      metadata: ["reminder": "\(row.reminderID)", "url": "\(row.url)", "attempts so far": "\(row.attempts)"])
        return await deliver(row)
    }

    private func deliver(_ start: EscalationRecord) async -> Bool {
        var row = start
        let body = Array((row.body ?? "").utf8)
        // Doubling from the first; the cap, 2^20 times the first, is above anything
        // `escalate_attempts` (at most 20) reaches, so it never shortens a wait.
        var backoff = Backoff(initial: firstBackoff, maximum: firstBackoff * (1 << 20))
        let metadata: Logger.Metadata = ["reminder": "\(row.reminderID)", "url": "\(row.url)"]
        for attempt in (row.attempts + 1)...max(row.attempts + 1, attempts) {
            row.attempts = attempt
            do {
                guard let client else { throw NoClient() }
                try await WebhookPost.send(body, to: row.url, client: client)
                row.deliveredAt = Date()
                row.error = nil
                row = (try? await database.saveEscalation(row)) ?? row
                logger.notice("escalation delivered", metadata: metadata.merging(["outcome": "\(row.reason)", "attempt": "\(attempt)"]) { $1 })
                return true
            } catch {
                // Cut off by the daemon's stop: not a failed attempt, and never the last one.
                guard !Task.isCancelled else {
                    logger.notice("escalation left for the next start (stopping)", metadata: metadata)
                    return false
                }
                row.error = "\(error)"
                row = (try? await database.saveEscalation(row)) ?? row
                logger.warning("escalation attempt \(attempt) of \(attempts) failed: \(error)", metadata: metadata)
            }
            guard attempt < attempts else { break }
            guard (try? await Task.sleep(for: backoff.next())) != nil else {
                logger.notice("escalation left for the next start (stopping)", metadata: metadata)
                return false
            }
        }
        row.givenUp = true
        _ = try? await database.saveEscalation(row)
        logger.error("escalation not delivered after \(row.attempts) attempts", metadata: metadata)
        return false
    }

    struct NoClient: Error, CustomStringConvertible {
        var description: String { "this process has no HTTP client to send it with" }
    }

}

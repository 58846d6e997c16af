import Foundation
import GRDB
import HeraldCore

/// One press of a button, as logged (`button_press`).
public struct ButtonPress: Sendable, Equatable, Codable {
    public var at: Date
    public var button: String
    /// The event as the button sent it (`single`, `double`, `hold`).
    public var event: String
    /// The action it mapped to; nil when the button or the event is unknown.
    public var action: String?
    /// `done`, `nothing` (nothing to do: no reminder waiting), `ignored` (unknown, too soon) or `failed`.
    public var result: String
    /// What it did, in a sentence.
    public var detail: String

    public init(at: Date, button: String, event: String, action: String?, result: String, detail: String) {
        self.at = at
        self.button = button
        self.event = event
        self.action = action
        self.result = result
        self.detail = detail
    }
}

extension AppDatabase {
    /// Logs a press.
    public func recordPress(_ press: ButtonPress) async throws {
        try await writer.write { db in
            try db.execute(sql: "INSERT INTO button_press(at, button, event, action, result, detail) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [press.at, press.button, press.event, press.action, press.result, press.detail])
        }
    }

    /// The last `limit` presses, newest first.
    public func presses(limit: Int) async throws -> [ButtonPress] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM button_press ORDER BY id DESC LIMIT ?", arguments: [limit]).map {
                ButtonPress(at: $0["at"], button: $0["button"], event: $0["event"], action: $0["action"], result: $0["result"],
                            detail: $0["detail"])
            }
        }
    }

    /// Presses older than `before` go (with the log's retention).
    public func prunePresses(before: Date) async throws {
        try await writer.write { db in try db.execute(sql: "DELETE FROM button_press WHERE at < ?", arguments: [before]) }
    }

    /// Each room's volume as its buttons last set it, in percent.
    public func roomVolumes() async throws -> [String: Int] {
        try await writer.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT room, percent FROM room_volume").map {
                ($0["room"] as String, $0["percent"] as Int)
            })
        }
    }

    public func setRoomVolume(_ room: String, percent: Int) async throws {
        try await writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO room_volume(room, percent) VALUES (?, ?)", arguments: [room, percent])
        }
    }

    /// The payments queued in `[since, until)` and counted (`PaymentTotals.countedOutcomes`), per currency.
    public func paymentTotals(since: Date, until: Date) async throws -> PaymentTotals {
        try await writer.read { db in
            let outcomes = PaymentTotals.countedOutcomes.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            let rows = try Row.fetchAll(db, sql: """
                SELECT amount_currency, COUNT(*), SUM(amount_minor_units) FROM announcement
                WHERE body_kind = 'payment' AND amount_currency IS NOT NULL AND replay_of IS NULL AND outcome IN (\(outcomes))
                  AND queued_at >= ? AND queued_at < ?
                GROUP BY amount_currency
                """, arguments: [since, until])
            let totals = rows.compactMap { row -> PaymentTotals.Total? in
                guard let currency = Currency.named(row[0]) else { return nil }
                return PaymentTotals.Total(currency: currency, count: row[1], minorUnits: row[2])
            }
            return PaymentTotals(since: since, until: until, totals: totals)
        }
    }
}

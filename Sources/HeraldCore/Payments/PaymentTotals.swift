import Foundation

/// Payments received over a window, per currency (`GET /v1/payments/total`, `herald pay total`,
/// a button's `total`): counted from the log's payments that were said or said within a summary
/// (outcomes `played`, `partial`, `interrupted`, `coalesced`), never from refused, failed,
/// duplicate or stale ones, nor from the summaries themselves (their payments are counted).
public struct PaymentTotals: Sendable, Equatable, Codable {
    /// One currency's payments.
    public struct Total: Sendable, Equatable, Codable {
        /// ISO 4217 code.
        public var currency: String
        public var count: Int
        /// The sum in the currency's minor units (cents, paise), exact.
        public var minorUnits: Int64
        /// The sum as a decimal with the currency's digits (`1284.50`), as tills send amounts.
        public var amount: String

        enum CodingKeys: String, CodingKey {
            case currency, count, amount
            case minorUnits = "minor_units"
        }

        public init(currency: Currency, count: Int, minorUnits: Int64) {
            self.currency = currency.code
            self.count = count
            self.minorUnits = minorUnits
            amount = Amount(minorUnits: minorUnits, currency: currency).decimalText
        }
    }

    public var since: Date
    public var until: Date
    /// Payments counted, in every currency.
    public var count: Int
    /// By currency code, in order of their code.
    public var totals: [Total]
    /// The outcomes counted: what the numbers mean.
    public static let countedOutcomes: [Outcome] = [.played, .partial, .interrupted, .coalesced]

    public init(since: Date, until: Date, totals: [Total]) {
        self.since = since
        self.until = until
        self.totals = totals.sorted { $0.currency < $1.currency }
        count = totals.map(\.count).reduce(0, +)
    }

    /// Midnight of the day `now` falls in, in `zone`: where "today" starts for the hub.
    public static func startOfDay(_ now: Date, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.startOfDay(for: now)
    }
}

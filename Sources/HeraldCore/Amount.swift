/// A currency Herald can speak, with the number of decimals its minor unit takes.
public struct Currency: Sendable, Hashable {
    public var code: String
    public var minorDigits: Int

    public init(code: String, minorDigits: Int) {
        self.code = code
        self.minorDigits = minorDigits
    }

    public static let usd = Currency(code: "USD", minorDigits: 2)
    public static let eur = Currency(code: "EUR", minorDigits: 2)
    public static let gbp = Currency(code: "GBP", minorDigits: 2)
    public static let jpy = Currency(code: "JPY", minorDigits: 0)
    public static let cny = Currency(code: "CNY", minorDigits: 2)
    public static let all: [Currency] = [.usd, .eur, .gbp, .jpy, .cny]

    /// The currency with ISO 4217 code `code` (any case): one of `all`, or any other the ISO list
    /// has (Foundation's), with CLDR's number of minor digits (none for JPY, KRW and, in practice,
    /// IDR). Nil for a code ISO 4217 does not list.
    public static func named(_ code: String) -> Currency? {
        let upper = code.uppercased()
        if let known = all.first(where: { $0.code == upper }) { return known }
        guard upper.count == 3, upper.allSatisfy({ $0.isASCII && $0.isUppercase }),
              isoCodes.contains(upper) else { return nil }
        return Currency(code: upper, minorDigits: cldrMinorDigits(upper))
    }

    /// ISO 4217's codes, read once.
    private static let isoCodes = Set(Locale.commonISOCurrencyCodes)

    /// The digits CLDR gives `code` after the point (`BHD 0.000`: 3). Foundation's NumberFormatter
    /// says 2 for every currency on Linux; its format style uses CLDR's own figure.
    private static func cldrMinorDigits(_ code: String) -> Int {
        let zero = Decimal(0).formatted(.currency(code: code).locale(Locale(identifier: "en_US_POSIX")).grouping(.never))
        guard let point = zero.lastIndex(of: ".") else { return 0 }
        return zero[zero.index(after: point)...].prefix { $0.isNumber }.count
    }
}

/// An exact money amount in integer minor units (cents): never binary floating point.
public struct Amount: Sendable, Hashable, CustomStringConvertible {
    public var minorUnits: Int64
    public var currency: Currency

    /// The largest amount Herald speaks: 999,999,999,999.99.
    public static let maximumMajorUnits: Int64 = 999_999_999_999

    public init(minorUnits: Int64, currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    public var scale: Int64 { (0..<currency.minorDigits).reduce(1) { value, _ in value * 10 } }
    public var majorUnits: Int64 { minorUnits / scale }
    public var fraction: Int64 { minorUnits % scale }

    /// `25.30 USD`: how the log's `body` shows it (the amount itself is kept in minor units).
    public var description: String { "\(decimalText) \(currency.code)" }

    /// `25.30`: the amount with its currency's decimals, as the API and the CLI take it.
    public var decimalText: String {
        guard currency.minorDigits > 0 else { return "\(majorUnits)" }
        let digits = String(fraction)
        let padded = String(repeating: "0", count: currency.minorDigits - digits.count) + digits
        return "\(majorUnits).\(padded)"
    }

    /// Parses `text` in the currency with ISO code `code`, or in `fallback` when `code` is nil.
    /// - Throws: `AmountError`, `.unknownCurrency` when Herald does not speak `code`.
    public static func parse(_ text: String, currencyCode code: String?, fallback: Currency) throws(AmountError) -> Amount {
        guard let code else { return try parse(text, currency: fallback) }
        guard let currency = Currency.named(code) else { throw AmountError.unknownCurrency(code) }
        return try parse(text, currency: currency)
    }

    /// A payment received, as a till sends it: `parse`, and more than zero ("payment received:
    /// zero dollars" is a till's mistake, not news for the counter).
    /// - Throws: `AmountError`, `.zero` for an amount of nothing.
    public static func payment(_ text: String, currencyCode code: String?, fallback: Currency) throws(AmountError) -> Amount {
        let amount = try parse(text, currencyCode: code, fallback: fallback)
        guard amount.minorUnits > 0 else { throw AmountError.zero(text) }
        return amount
    }

    /// Reads back an amount from a log row's text (`25.30 USD`), for rows from before the log kept
    /// amounts in minor units (those from before the currency was logged have only the number,
    /// in `fallback`).
    public static func parse(logged text: String, fallback: Currency) throws(AmountError) -> Amount {
        let parts = text.split(separator: " ").map(String.init)
        return try parse(parts.first ?? "", currencyCode: parts.count > 1 ? parts[1] : nil, fallback: fallback)
    }

    /// Parses a decimal such as `25.3`, `25.30` or `1000`, exactly.
    ///
    /// Space around the digits is refused, not trimmed: a till that sends `" 25"` or `"25\u{A0}"`
    /// has a bug worth seeing, and what is logged must be what was sent.
    /// - Throws: `AmountError` saying what is wrong with `text`.
    public static func parse(_ text: String, currency: Currency) throws(AmountError) -> Amount {
        guard text.contains(where: { !$0.isWhitespace }) else { throw AmountError.empty }
        if let space = text.first, space.isWhitespace { throw AmountError.surroundingSpace(text, space, atStart: true) }
        if let space = text.last, space.isWhitespace { throw AmountError.surroundingSpace(text, space, atStart: false) }
        let trimmed = text
        let lowered = trimmed.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "+-"))
        if ["nan", "inf", "infinity", "snan"].contains(lowered) { throw AmountError.notANumber(trimmed) }
        if trimmed.hasPrefix("-") { throw AmountError.negative(trimmed) }
        let parts = trimmed.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = String(parts[0]), decimals = parts.count > 1 ? String(parts[1]) : ""
        let isDigits = { (s: String) in s.allSatisfy { $0.isASCII && $0.isNumber } }
        guard !whole.isEmpty, isDigits(whole), isDigits(decimals), parts.count == 1 || !decimals.isEmpty else {
            throw AmountError.notNumeric(trimmed)
        }
        guard decimals.count <= currency.minorDigits else {
            throw AmountError.tooManyDecimals(trimmed, currency: currency)
        }
        let significant = whole.drop { $0 == "0" }
        guard significant.count <= 12, let major = Int64(significant.isEmpty ? "0" : String(significant)),
              major <= maximumMajorUnits else {
            throw AmountError.tooLarge(trimmed)
        }
        let paddedDecimals = decimals + String(repeating: "0", count: currency.minorDigits - decimals.count)
        let minor = paddedDecimals.isEmpty ? 0 : Int64(paddedDecimals)!
        var amount = Amount(minorUnits: 0, currency: currency)
        amount.minorUnits = major * amount.scale + minor
        return amount
    }
}

/// What is wrong with an amount, and what to write instead.
public enum AmountError: Error, Equatable, CustomStringConvertible {
    case empty
    case notANumber(String)
    case negative(String)
    case zero(String)
    case notNumeric(String)
    case tooManyDecimals(String, currency: Currency)
    case tooLarge(String)
    case unknownCurrency(String)
    /// A space (or tab, no-break space...) before or after the digits.
    case surroundingSpace(String, Character, atStart: Bool)

    public var description: String {
        switch self {
        case .empty: "amount: empty; write it like 25.30"
        case .surroundingSpace(let text, let space, let atStart):
            "amount: '\(text)' \(atStart ? "starts" : "ends") with \(Self.name(space)); send the digits alone, like 25.30"
        case .notANumber(let text): "amount: '\(text)' is not a number; write it like 25.30"
        case .negative(let text): "amount: '\(text)' is negative; a payment amount must be positive (Herald announces payments received)"
        case .zero(let text): "amount: '\(text)' is zero; a payment amount must be more than nothing (Herald announces payments received)"
        case .notNumeric(let text): "amount: '\(text)' is not a plain decimal; write digits with an optional point, like 1250.75 (no separators, no exponent)"
        case .tooManyDecimals(let text, let currency):
            "amount: '\(text)' has more decimals than \(currency.code) has (\(currency.minorDigits))"
        case .tooLarge(let text): "amount: '\(text)' is too large; the most Herald speaks is 999999999999.99"
        case .unknownCurrency(let code):
            "currency '\(code)' is not an ISO 4217 code; use one such as \(Currency.all.map(\.code).joined(separator: ", ")), MXN or INR"
        }
    }

    /// A space character in words, with its code point when it does not look like what it is.
    private static func name(_ space: Character) -> String {
        let codes = space.unicodeScalars.map(\.codePoint).joined(separator: " ")
        return switch space {
        case " ": "a space"
        case "\t": "a tab (U+0009)"
        case "\n", "\r\n", "\r": "a line break (\(codes))"
        case "\u{A0}": "a no-break space (U+00A0)"
        default: "a space character (\(codes))"
        }
    }
}

import Foundation

import HeraldCore

/// US-style English: "twenty-five dollars and thirty cents", "one hundred one euros".
/// "and" only joins the major and minor units, so it never makes a number ambiguous.
public struct EnglishAmountGrammar: AmountGrammar {
    public let language = "en"

    public init() {}

    static let ones = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                       "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                       "eighteen", "nineteen"]
    static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

    /// (singular, plural) for the major and the minor unit.
    static func units(_ currency: Currency) -> (major: (String, String), minor: (String, String)) {
        switch currency.code {
        // The others (`ownCurrencies`) are said with CLDR's names.
        case "EUR": (("euro", "euros"), ("cent", "cents"))
        case "GBP": (("pound", "pounds"), ("penny", "pence"))
        case "JPY": (("yen", "yen"), ("", ""))
        case "CNY": (("yuan", "yuan"), ("fen", "fen"))
        default: (("dollar", "dollars"), ("cent", "cents"))
        }
    }

    public var vocabulary: [String] {
        var words = Self.ones + Self.tens.filter { !$0.isEmpty } + ["hundred", "thousand", "million", "billion", "and"]
        for currency in Currency.all {
            let units = Self.units(currency)
            words += [units.major.0, units.major.1, units.minor.0, units.minor.1].filter { !$0.isEmpty }
        }
        var seen = Set<String>()
        return words.filter { seen.insert($0).inserted }
    }

    /// Tokens for 0...999,999,999,999; the text joins tens and ones with a hyphen.
    public func number(_ value: Int64) -> (text: String, tokens: [String]) {
        if value == 0 { return ("zero", ["zero"]) }
        var parts: [(String, [String])] = []
        let groups: [(Int64, String?)] = [(1_000_000_000, "billion"), (1_000_000, "million"), (1_000, "thousand"), (1, nil)]
        var rest = value
        for (size, name) in groups where rest >= size {
            let group = rest / size
            rest %= size
            var group3 = belowThousand(Int(group))
            if let name {
                group3.0 += " \(name)"
                group3.1.append(name)
            }
            parts.append(group3)
        }
        return (parts.map(\.0).joined(separator: " "), parts.flatMap(\.1))
    }

    private func belowThousand(_ value: Int) -> (String, [String]) {
        var text: [String] = [], tokens: [String] = []
        if value >= 100 {
            text.append("\(Self.ones[value / 100]) hundred")
            tokens += [Self.ones[value / 100], "hundred"]
        }
        let rest = value % 100
        if rest >= 20 {
            let ten = Self.tens[rest / 10]
            text.append(rest % 10 == 0 ? ten : "\(ten)-\(Self.ones[rest % 10])")
            tokens += rest % 10 == 0 ? [ten] : [ten, Self.ones[rest % 10]]
        } else if rest > 0 {
            text.append(Self.ones[rest])
            tokens.append(Self.ones[rest])
        }
        return (text.joined(separator: " "), tokens)
    }

    /// The currencies whose names this grammar has; any other is said with CLDR's English names.
    static let ownCurrencies: Set<String> = ["USD", "EUR", "GBP", "JPY", "CNY"]

    public func words(for amount: Amount) -> AmountPhrase {
        // "twenty-five Mexican pesos and thirty centavos": ICU's English numbers are these ones.
        if !Self.ownCurrencies.contains(amount.currency.code), let cldr = CLDRAmountGrammar(language: "en") {
            return cldr.words(for: amount)
        }
        let units = Self.units(amount.currency)
        let major = amount.majorUnits, minor = amount.fraction
        var text: [String] = [], tokens: [String] = []
        func add(_ value: Int64, _ unit: (String, String)) {
            let spoken = number(value)
            let name = value == 1 ? unit.0 : unit.1
            text.append("\(spoken.text) \(name)")
            tokens += spoken.tokens + [name]
        }
        if major > 0 || minor == 0 { add(major, units.major) }
        if minor > 0 {
            if major > 0 {
                text.append("and")
                tokens.append("and")
            }
            add(minor, units.minor)
        }
        return AmountPhrase(text: text.joined(separator: " "), tokens: tokens)
    }
}

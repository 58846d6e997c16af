import HeraldCore

/// Mandarin Chinese, as payment soundboxes speak: 二十五元三角, 一百零二元, 两千零五元零五分.
///
/// 零: one 零 for any run of zeros inside a number or between 元 and 分; none at the end.
/// 两: a 2 before 百, 千, 万 or 亿, and a lone 2 before a unit word (两元, 两角, 两分); 二 elsewhere
/// (二十, 十二, 一百零二). A leading 一十 is said 十 (十五元, 十万), but not inside (一百一十).
public struct ChineseAmountGrammar: AmountGrammar {
    public let language = "zh"

    public init() {}

    static let digits = ["零", "一", "二", "三", "四", "五", "六", "七", "八", "九"]

    /// (major, minor) unit words for the currencies other than the yuan that soundboxes say;
    /// nil for the rest, said with CLDR's Chinese name (墨西哥比索) and 分.
    static func units(_ currency: Currency) -> (String, String?)? {
        switch currency.code {
        case "USD": ("美元", "美分")
        case "EUR": ("欧元", "欧分")
        case "GBP": ("英镑", "便士")
        case "JPY": ("日元", nil)
        default: nil
        }
    }

    public var vocabulary: [String] {
        Self.digits + ["两", "十", "百", "千", "万", "亿", "元", "角", "分", "美元", "美分", "欧元", "欧分", "英镑", "便士", "日元"]
    }

    /// The tokens (characters) for 0...999,999,999,999 (up to 九千九百九十九亿...).
    public func number(_ value: Int64) -> [String] {
        if value == 0 { return ["零"] }
        var tokens: [String] = []
        let groups: [(Int64, String?)] = [(100_000_000, "亿"), (10_000, "万"), (1, nil)]
        var rest = value
        var pendingZero = false
        for (size, name) in groups {
            let group = Int(rest / size)
            rest %= size
            if group == 0 {
                if !tokens.isEmpty { pendingZero = true }
                continue
            }
            if pendingZero || (!tokens.isEmpty && group < 1000) { tokens.append("零") }
            pendingZero = false
            tokens += belowTenThousand(group, isLeading: tokens.isEmpty, beforeUnit: name != nil)
            if let name { tokens.append(name) }
        }
        return tokens
    }

    private func belowTenThousand(_ value: Int, isLeading: Bool, beforeUnit: Bool) -> [String] {
        var tokens: [String] = []
        let places: [(Int, String?)] = [(1000, "千"), (100, "百"), (10, "十"), (1, nil)]
        var zeroPending = false
        for (size, name) in places {
            let digit = (value / size) % 10
            if digit == 0 {
                if !tokens.isEmpty { zeroPending = true }
                continue
            }
            if zeroPending { tokens.append("零") }
            zeroPending = false
            if size == 10 && digit == 1 && tokens.isEmpty && isLeading {
                tokens.append("十")  // 十五, not 一十五, at the very start
                continue
            }
            let useLiang = digit == 2 && (size >= 100 || (size == 1 && value == 2 && beforeUnit))
            tokens.append(useLiang ? "两" : Self.digits[digit])
            if let name { tokens.append(name) }
        }
        return tokens
    }

    public func words(for amount: Amount) -> AmountPhrase {
        let major = amount.majorUnits, minor = amount.fraction
        var tokens: [String] = []
        func lone(_ value: Int64) -> [String] { value == 2 ? ["两"] : number(value) }
        if amount.currency == .cny {
            let jiao = minor / 10, fen = minor % 10
            if major > 0 || minor == 0 { tokens += lone(major) + ["元"] }
            if jiao > 0 { tokens += lone(jiao) + ["角"] }
            if fen > 0 {
                if jiao == 0 && major > 0 { tokens.append("零") }
                tokens += lone(fen) + ["分"]
            }
        } else {
            let (majorName, minorName) = Self.units(amount.currency)
                ?? (CLDRAmountGrammar(language: "zh")?.currencyName(major, amount.currency).name ?? amount.currency.code,
                    MinorUnitNames.name(currency: amount.currency.code, language: "zh")?.form(.other))
            if major > 0 || minor == 0 || minorName == nil { tokens += lone(major) + [majorName] }
            if minor > 0, let minorName { tokens += lone(minor) + [minorName] }
        }
        return AmountPhrase(text: tokens.joined(), tokens: tokens)
    }
}

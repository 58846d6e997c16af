/// The words for hundred, thousand, lakh and crore in the Indian languages whose numbers the voice
/// reads: with the voice's own clips of 0 to 99 (irregular in each language), a voice pack says any
/// amount in the Indian system, "12 लाख 34 हजार 5 शे 67" (issue 50). Machine-written, unchecked:
/// where a language fuses the hundreds into one word (mr पाचशे, kn ಐನೂರು) the pack says the
/// digit's word and then the hundred's, close to but not quite the spoken form.
struct IndianScaleWords: Sendable, Equatable {
    var hundred: String
    var thousand: String
    var lakh: String
    var crore: String

    /// The words of `language` (base code); nil for a language that does not count in lakh and crore.
    static func of(_ language: String) -> IndianScaleWords? { all[language] }

    private static let all: [String: IndianScaleWords] = [
        "mr": .init(hundred: "शे", thousand: "हजार", lakh: "लाख", crore: "कोटी"),
        "gu": .init(hundred: "સો", thousand: "હજાર", lakh: "લાખ", crore: "કરોડ"),
        "bn": .init(hundred: "শো", thousand: "হাজার", lakh: "লাখ", crore: "কোটি"),
        "pa": .init(hundred: "ਸੌ", thousand: "ਹਜ਼ਾਰ", lakh: "ਲੱਖ", crore: "ਕਰੋੜ"),
        "te": .init(hundred: "వందల", thousand: "వేల", lakh: "లక్షల", crore: "కోట్ల"),
        "kn": .init(hundred: "ನೂರು", thousand: "ಸಾವಿರ", lakh: "ಲಕ್ಷ", crore: "ಕೋಟಿ"),
        "ml": .init(hundred: "നൂറ്", thousand: "ആയിരം", lakh: "ലക്ഷം", crore: "കോടി"),
        "or": .init(hundred: "ଶହ", thousand: "ହଜାର", lakh: "ଲକ୍ଷ", crore: "କୋଟି"),
        "ur": .init(hundred: "سو", thousand: "ہزار", lakh: "لاکھ", crore: "کروڑ"),
    ]

    /// `value`'s tokens in the Indian system: each group's number (0 to 99, a clip the voice
    /// rendered from its digits) and its scale word; the crores counted the same way above them.
    func tokens(_ value: Int64) -> [String] {
        guard value > 0 else { return ["0"] }
        let crores = value / 10_000_000, rest = value % 10_000_000
        var tokens = crores > 0 ? tokens(crores) + [crore] : []
        for (count, word) in [(rest / 100_000, lakh), (rest / 1000 % 100, thousand), (rest / 100 % 10, hundred)] where count > 0 {
            tokens += ["\(count)", word]
        }
        if rest % 100 > 0 { tokens.append("\(rest % 100)") }
        return tokens
    }

    /// Every token `tokens(_:)` can emit.
    var vocabulary: [String] { (0...99).map { "\($0)" } + [hundred, thousand, lakh, crore] }
}

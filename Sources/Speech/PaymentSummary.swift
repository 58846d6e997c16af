import HeraldCore

/// One sentence for payments that piled up: "four payments received, total seventy-five dollars
/// and twenty cents" / "收到四笔付款，共七十五元两角".
public struct PaymentSummary: Sendable, Equatable {
    public var text: String
    public var total: Amount

    /// The summary of `amounts` in one currency; nil when they cannot be summed (different
    /// currencies, another language than en or zh).
    public init?(amounts: [Amount], language: String) {
        guard amounts.count > 1, let currency = amounts.first?.currency,
              amounts.allSatisfy({ $0.currency == currency }),
              let grammar = try? AmountGrammars.grammar(for: language) else { return nil }
        let total = Amount(minorUnits: amounts.reduce(0) { $0 + $1.minorUnits }, currency: currency)
        let totalWords = grammar.words(for: total).text
        if grammar.language == "zh" {
            let count = ChineseAmountGrammar().number(Int64(amounts.count)).joined()
            text = "收到\(count == "二" ? "两" : count)笔付款，共\(totalWords)"
        } else {
            text = "\(EnglishAmountGrammar().number(Int64(amounts.count)).text) payments received, total \(totalWords)"
        }
        self.total = total
    }
}

import HeraldCore

/// One sentence for payments that piled up: "four payments received, total seventy-five dollars
/// and twenty cents" / "收到四笔付款，共七十五元两角".
public struct PaymentSummary: Sendable, Equatable {
    public var text: String
    public var total: Amount

    /// The summary of `amounts` (as typed) in one currency; nil when they cannot be summed
    /// (different currencies, a bad amount, another language than en or zh).
    public init?(amounts: [(amount: String, currency: String?)], language: String, settings: SpeechSettings) {
        guard amounts.count > 1 else { return nil }
        let currencies = Set(amounts.map { $0.currency?.uppercased() ?? settings.currency.code })
        guard currencies.count == 1, let code = currencies.first, let currency = Currency.named(code),
              let grammar = try? AmountGrammars.grammar(for: language) else { return nil }
        var minor: Int64 = 0
        for item in amounts {
            guard let amount = try? Amount.parse(item.amount, currency: currency) else { return nil }
            minor += amount.minorUnits
        }
        let total = Amount(minorUnits: minor, currency: currency)
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

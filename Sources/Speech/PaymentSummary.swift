import HeraldCore

/// One sentence for payments that piled up: "four payments received, total seventy-five dollars
/// and twenty cents" / "收到四笔付款，共七十五元两角".
public struct PaymentSummary: Sendable, Equatable {
    public var text: String
    public var total: Amount

    /// The summary of `amounts` in one currency, in `language` with `phrases` (`SpeechSettings.phrases(for:)`);
    /// nil when they cannot be summed (different currencies, a language whose amounts Herald cannot say).
    public init?(amounts: [Amount], language: String, phrases: PhraseTable) {
        guard amounts.count > 1, let currency = amounts.first?.currency,
              amounts.allSatisfy({ $0.currency == currency }),
              let grammar = try? AmountGrammars.grammar(for: language) else { return nil }
        // A sum beyond what Herald speaks (or beyond Int64) is no summary: said one by one.
        var sum: Int64 = 0
        for amount in amounts {
            let (next, overflow) = sum.addingReportingOverflow(amount.minorUnits)
            guard !overflow else { return nil }
            sum = next
        }
        let total = Amount(minorUnits: sum, currency: currency)
        guard total.majorUnits <= Amount.maximumMajorUnits else { return nil }
        let count = Int64(amounts.count)
        let countWords: String = switch grammar {
        case let chinese as ChineseAmountGrammar: count == 2 ? "两" : chinese.number(count).joined()
        case let cldr as CLDRAmountGrammar: cldr.number(count, before: .masculine).text
        default: EnglishAmountGrammar().number(count).text
        }
        text = phrases.paymentsSummary
            .replacingOccurrences(of: "{count}", with: countWords)
            .replacingOccurrences(of: "{amount}", with: grammar.words(for: total).text)
        self.total = total
    }
}

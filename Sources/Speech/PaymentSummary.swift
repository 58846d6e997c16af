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
        text = phrases.paymentsSummary
            .replacingOccurrences(of: "{count}", with: Self.countWords(Int64(amounts.count), grammar: grammar))
            .replacingOccurrences(of: "{amount}", with: grammar.words(for: total).text)
        self.total = total
    }

    /// A count of payments in the words of `grammar`'s language ("four", "两", "vier"), or in
    /// digits for the voice to read where the language's numbers are the voice's ("4").
    static func countWords(_ count: Int64, grammar: any AmountGrammar) -> String {
        switch grammar {
        case let chinese as ChineseAmountGrammar: count == 2 ? "两" : chinese.number(count).joined()
        case let cldr as CLDRAmountGrammar: cldr.number(count, before: .masculine).text
        case let voice as VoiceNumberAmountGrammar: voice.number(count).text
        default: EnglishAmountGrammar().number(count).text
        }
    }
}

/// Today's payments as a sentence per currency (a button's `total`): "Payments today: fourteen,
/// total one thousand two hundred eighty-four rupees and fifty paise". In English (phrases and
/// words) when Herald cannot say amounts in `language`.
public enum PaymentTotalWording {
    public static func text(_ totals: PaymentTotals, language: String, phrases: PhraseTable) -> String {
        var phrases = phrases
        let grammar: any AmountGrammar
        if let own = try? AmountGrammars.grammar(for: language) { grammar = own } else {
            grammar = EnglishAmountGrammar()
            phrases = PhraseTable.english
        }
        guard !totals.totals.isEmpty else { return phrases.noPaymentsToday }
        return totals.totals.compactMap { total -> String? in
            guard let currency = Currency.named(total.currency) else { return nil }
            let amount = Amount(minorUnits: total.minorUnits, currency: currency)
            // Beyond what Herald speaks: the figures, read by the voice.
            let words = amount.majorUnits <= Amount.maximumMajorUnits ? grammar.words(for: amount).text : amount.description
            return phrases.paymentsToday
                .replacingOccurrences(of: "{count}", with: PaymentSummary.countWords(Int64(total.count), grammar: grammar))
                .replacingOccurrences(of: "{amount}", with: words)
        }.joined(separator: ". ")
    }
}

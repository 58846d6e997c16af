import Foundation
import HeraldCore
import Speech

/// `--languages-only`: what a payment's sentence costs to make, per language, as the renderer
/// makes it before the first word (the language's grammar, its words for the amount, the payment
/// sentence around them), against English's hand grammar in the same process. CPU only: no sink
/// is involved.
struct LanguageBench {
    var rounds = 11
    var paymentsPerRound = 200

    /// The currency each language is measured in (docs/voices.md, "Languages").
    static let currencies = [
        "en": "USD", "zh": "CNY", "es": "MXN", "pt": "BRL", "fr": "EUR", "de": "EUR", "hi": "INR", "ta": "INR",
        "id": "IDR", "vi": "VND", "sw": "KES", "ar": "EGP", "tr": "TRY", "ru": "RUB",
    ]

    func run() throws {
        let settings = SpeechSettings()
        print("Payment sentences, per payment: the grammar, the words and the sentence, as SpeechRenderer makes them (median of \(rounds) rounds of \(paymentsPerRound) amounts up to 999,999,999,999.99)")
        var english = 0.0
        for language in ["en", "zh"] + AmountGrammars.covered.filter({ $0 != "en" && $0 != "zh" }) {
            guard let code = Self.currencies[language], let currency = Currency.named(code) else { continue }
            var generator = SystemRandomNumberGenerator()
            let scale = Int64(pow(10, Double(currency.minorDigits)))
            let amounts = (0..<paymentsPerRound).map { _ in
                Amount(minorUnits: Int64.random(in: 1...999_999_999_999, using: &generator) * scale + Int64.random(in: 0..<scale, using: &generator),
                       currency: currency)
            }
            var characters = 0
            /// Per-payment µs of `rounds` rounds of the amounts, the grammar from `grammar`.
            func measure(_ grammar: () throws -> any AmountGrammar) rethrows -> [Double] {
                try (0..<rounds).map { _ in
                    let started = ContinuousClock.now
                    for amount in amounts {
                        characters &+= settings.phrase(for: language).fill(try grammar().words(for: amount)).text.count
                    }
                    return (ContinuousClock.now - started).inSeconds * 1e6 / Double(amounts.count)
                }
            }
            // As the renderer does now (the grammar made once per language), and as it did before
            // (a grammar made for every payment): the baseline, in the same process.
            let kept = try measure { try AmountGrammars.grammar(for: language) }
            let madeEachTime = try measure {
                guard let grammar = AmountGrammars.makeGrammar(for: language) else { throw SpeechError.unknownLanguage(language) }
                return grammar
            }
            let median = kept.sorted()[kept.count / 2], before = madeEachTime.sorted()[madeEachTime.count / 2]
            if language == "en" { english = median }
            let kind = language == "en" || language == "zh" ? "hand" : "CLDR"
            print(String(format: "  %@ %@ (%@)  median %7.1f µs per payment (min %.1f, max %.1f), %5.1f× English's; grammar made per payment %7.1f µs (%.1f× slower)",
                         language as NSString, code as NSString, kind as NSString, median, kept.min() ?? 0, kept.max() ?? 0,
                         english > 0 ? median / english : 1, before, before / median))
            precondition(characters > 0)
        }
    }
}

import Foundation
import HeraldCore
import Speech
import Testing

/// A button's `total` in words: a sentence per currency, the count after a colon (no agreement
/// with a noun), English whole where Herald cannot say amounts in the language.
@Suite struct PaymentTotalWordingTests {
    @Test func eachCurrencyIsASentence() throws {
        let inr = try #require(Currency.named("INR"))
        let totals = PaymentTotals(since: Date(), until: Date(), totals: [.init(currency: .usd, count: 1, minorUnits: 525),
                                                                           .init(currency: inr, count: 3, minorUnits: 11_950)])
        let sentence = PaymentTotalWording.text(totals, language: "en", phrases: PhraseTable.of("en"))
        #expect(sentence.hasPrefix("Payments today: three, total one hundred nineteen"), "\(sentence)")
        #expect(sentence.contains(". Payments today: one, total five dollars and twenty-five cents"), "\(sentence)")
        let none = PaymentTotals(since: Date(), until: Date(), totals: [])
        #expect(PaymentTotalWording.text(none, language: "de", phrases: PhraseTable.of("de")) == "Heute keine Zahlungen.")
    }
}

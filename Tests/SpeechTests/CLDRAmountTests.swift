import Foundation
import HeraldCore
import Speech
import Testing

/// Amounts in every language CLDR covers here, checked against ICU itself: the spoken text, with
/// the currency's CLDR name and Herald's minor-unit name taken out, splits into a major and a minor
/// part that ICU's own spell-out parser reads back as exactly the amount.
@Suite struct CLDRAmountTests {
    /// Each language with a currency of its own.
    static let languages: [(language: String, currency: String)] = [
        ("es", "MXN"), ("pt", "BRL"), ("fr", "EUR"), ("de", "EUR"), ("hi", "INR"), ("ta", "INR"),
        ("id", "IDR"), ("vi", "VND"), ("sw", "KES"), ("ar", "EGP"), ("tr", "TRY"), ("ru", "RUB"),
    ]

    /// 0.01, 1, 21, 99, 100, 101, 1000, 1001, a lakh, a million, a crore, then random amounts over
    /// every number of digits up to 999,999,999,999.99, with and without a minor part: 200 in all,
    /// the same on every run.
    static func amounts(in currency: Currency) -> [Amount] {
        let scale = Int64((0..<currency.minorDigits).reduce(1) { value, _ in value * 10 })
        var fixed: [Int64] = [1, 21, 99, 100, 101, 1000, 1001, 100_000, 1_000_000, 10_000_000, 999_999_999_999].map { $0 * scale }
        if scale > 1 { fixed += [1, 21 * scale + 21, scale * 1_000_000 + 1] }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var random: [Int64] = []
        while fixed.count + random.count < 200 {
            let digits = Int(next() % 12) + 1
            let major = Int64(next() % UInt64(pow(10, Double(digits))))
            let minor = scale > 1 && next() % 2 == 0 ? Int64(next() % UInt64(scale)) : 0
            if major > 0 || minor > 0 { random.append(major * scale + minor) }
        }
        return (fixed + random).map { Amount(minorUnits: $0, currency: currency) }
    }

    /// Whether ICU reads `text` in `language` as exactly `value`, all of it: ICU also reads a
    /// prefix and says nothing of the rest, so the text without its last word (or character, in
    /// Chinese) must read as something else. Strict first; lenient for German and Spanish, whose
    /// words ICU joins with soft hyphens that speech has none of.
    static func reads(_ text: String, as value: Int64, with parsers: [NumberFormatter]) -> Bool {
        let shorter = text.contains(" ") ? String(text[..<text.lastIndex(of: " ")!]) : String(text.dropLast())
        return parsers.contains { parser in
            parser.number(from: text)?.int64Value == value && parser.number(from: shorter)?.int64Value != value
        }
    }

    /// ICU's spell-out parsers for `language`: strict, then lenient.
    static func parsers(_ language: String) -> [NumberFormatter] {
        [false, true].map { lenient in
            let formatter = NumberFormatter()
            formatter.locale = Locale(identifier: language)
            formatter.numberStyle = .spellOut
            formatter.isLenient = lenient
            return formatter
        }
    }

    /// CLDR's name of `code` for `count` in `language`, read off its full-name currency format.
    static func cldrName(_ count: Int64, _ code: String, _ language: String) -> String {
        let locale = Locale(identifier: language)
        let full = count.formatted(.currency(code: code).presentation(.fullName).precision(.fractionLength(0)).locale(locale))
        let pieces = full.components(separatedBy: count.formatted(.number.locale(locale)))
        return pieces.map { $0.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\u{A0}\u{202F}\u{200E}\u{200F}\u{061C}₺"))) }
            .max { $0.count < $1.count } ?? ""
    }

    /// `text` without `name` (and the "de" Spanish, Portuguese and French put before it after a
    /// million); nil when the name is not there.
    static func removing(_ name: String, from text: String) -> String? {
        for form in ["de " + name, "d’" + name, name] {
            if let range = text.range(of: form, options: .backwards) {
                return text.replacingCharacters(in: range, with: "").trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    @Test(arguments: languages)
    func everyAmountReadsBackExactlyWithCLDRsNames(language: String, code: String) throws {
        let currency = try #require(Currency.named(code))
        let grammar = try #require(CLDRAmountGrammar(language: language))
        let connector = PhraseTable.of(language).majorAndMinor
            .replacingOccurrences(of: "{major}", with: "").replacingOccurrences(of: "{minor}", with: "")
            .trimmingCharacters(in: .whitespaces)
        var failures: [String] = []
        let parsers = Self.parsers(language)
        for amount in Self.amounts(in: currency) {
            let text = grammar.words(for: amount).text
            let (major, minor) = (amount.majorUnits, amount.fraction)
            #expect(!text.contains("\u{AD}"), "no soft hyphen is spoken: \(text)")
            var rest = text
            if minor > 0 {
                let name = try #require(MinorUnitNames.name(currency: code, language: language))
                    .form(PluralCategory.of(minor, language: language))
                guard let without = Self.removing(name, from: rest) else { failures.append("\(amount): no '\(name)' in \(text)"); continue }
                rest = without
            }
            if major > 0 || minor == 0 {
                let name = Self.cldrName(major, code, language)
                guard let without = Self.removing(name, from: rest) else { failures.append("\(amount): no CLDR name '\(name)' in \(text)"); continue }
                rest = without
            }
            // What is left is the major number, the connector, the minor number: some split of it
            // at the connector must read back as both.
            let read: Bool
            if major > 0 && minor > 0 {
                let words = rest.split(separator: " ").map(String.init)
                read = (1..<words.count).contains { cut in
                    var left = words[..<cut].joined(separator: " "), right = words[cut...].joined(separator: " ")
                    if !connector.isEmpty {
                        guard left.hasSuffix(" " + connector) || right.hasPrefix(connector) else { return false }
                        left = left.hasSuffix(" " + connector) ? String(left.dropLast(connector.count + 1)) : left
                        right = right.hasPrefix(connector) ? String(right.dropFirst(connector.count)).trimmingCharacters(in: .whitespaces) : right
                    }
                    return Self.reads(left, as: major, with: parsers) && Self.reads(right, as: minor, with: parsers)
                }
            } else {
                read = Self.reads(rest, as: major > 0 || minor == 0 ? major : minor, with: parsers)
            }
            if !read { failures.append("\(amount): '\(text)' does not read back (numbers: '\(rest)')") }
        }
        #expect(failures.isEmpty, "\(failures.count) of 200 in \(language):\n\(failures.prefix(10).joined(separator: "\n"))")
    }

    @Test func theHandGrammarsReadBackWithICUToo() throws {
        let english = Self.parsers("en"), chinese = Self.parsers("zh")
        for amount in Self.amounts(in: .usd) {
            let major = amount.majorUnits
            #expect(Self.reads(EnglishAmountGrammar().number(major).text, as: major, with: english))
            #expect(Self.reads(ChineseAmountGrammar().number(major).joined(), as: major, with: chinese), "\(ChineseAmountGrammar().number(major).joined())")
        }
    }

    @Test func soundboxExamplesInEachLanguage() throws {
        let examples: [(String, String, String, String)] = [
            ("es", "25.30", "MXN", "Pago recibido: veinticinco pesos mexicanos con treinta centavos"),
            ("es", "1", "MXN", "Pago recibido: un peso mexicano"),
            ("es", "1000000", "MXN", "Pago recibido: un millón de pesos mexicanos"),
            ("pt", "25.30", "BRL", "Pagamento recebido: vinte e cinco Reais brasileiros e trinta centavos"),
            ("fr", "21", "EUR", "Paiement reçu : vingt-et-un euros"),
            ("fr", "1000000", "EUR", "Paiement reçu : un million d’euros"),
            ("de", "101.21", "EUR", "Zahlung erhalten: einhundertein Euro und einundzwanzig Cent"),
            ("hi", "250.75", "INR", "भुगतान प्राप्त हुआ: दो सौ पचास भारतीय रुपए और पचहत्तर पैसे"),
            ("ru", "1001.02", "RUB", "Оплата получена: одна тысяча один российский рубль две копейки"),
            ("sw", "1", "KES", "Malipo yamepokelewa: shilingi ya Kenya moja"),
        ]
        for (language, text, code, expected) in examples {
            let amount = try Amount.parse(text, currencyCode: code, fallback: .usd)
            let grammar = try AmountGrammars.grammar(for: language)
            #expect(PhraseTemplate.standard(language: language).fill(grammar.words(for: amount)).text == expected)
        }
    }

    @Test func aCurrencyISOListsIsSpokenWithCLDRsDigitsAndOneItDoesNotIsRefused() throws {
        #expect(Currency.named("inr") == Currency(code: "INR", minorDigits: 2))
        #expect(Currency.named("KRW")?.minorDigits == 0)
        #expect(Currency.named("IDR")?.minorDigits == 0, "in practice, as CLDR says")
        #expect(Currency.named("BHD")?.minorDigits == 3)
        #expect(Currency.named("XYZ") == nil)
        #expect(throws: AmountError.tooManyDecimals("12.5", currency: Currency(code: "KRW", minorDigits: 0))) {
            try Amount.parse("12.5", currencyCode: "KRW", fallback: .usd)
        }
        #expect(throws: AmountError.tooLarge("1000000000000")) { try Amount.parse("1000000000000", currency: .usd) }
    }

    @Test func languagesCLDRCannotSayAreNotOffered() {
        #expect(CLDRAmountGrammar(language: "bn") == nil, "ICU spells Bengali numbers in English")
        #expect(CLDRAmountGrammar(language: "ja") == nil, "kanji, which espeak-ng reads as 'Chinese letter'")
        #expect(CLDRAmountGrammar(language: "xx") == nil)
        #expect(CLDRAmountGrammar(language: "pt-BR") != nil)
        #expect(AmountGrammars.covered == ["ar", "bn", "de", "en", "es", "fr", "gu", "hi", "id", "ja", "kn", "ml", "mr", "or",
                                           "pa", "pt", "ru", "sw", "ta", "te", "tr", "ur", "vi", "zh"])
    }

    @Test func everyPhraseHasItsPlaceholdersOnce() {
        for (language, table) in PhraseTable.builtIn {
            #expect(table.paymentReceived.components(separatedBy: "{amount}").count == 2, "\(language)")
            #expect(table.paymentsSummary.components(separatedBy: "{amount}").count == 2, "\(language)")
            #expect(table.paymentsSummary.components(separatedBy: "{count}").count == 2, "\(language)")
            let join = table.majorAndMinor
            #expect(join.components(separatedBy: "{major}").count == 2 && join.components(separatedBy: "{minor}").count == 2, "\(language)")
            #expect(join.range(of: "{major}")!.lowerBound < join.range(of: "{minor}")!.lowerBound, "\(language)")
        }
        #expect(Set(PhraseTable.builtIn.keys) == ["en", "zh", "es", "pt", "fr", "de", "hi", "ta", "bn", "id", "vi", "sw", "ar", "tr", "ru", "ja",
                                                  "mr", "te", "kn", "ml", "pa", "or", "gu", "ur"])
        #expect(PhraseTable.builtIn.filter(\.value.checkedBySpeaker).keys.sorted() == ["en", "zh"])
    }
}

import HeraldCore
import Speech
import Testing

@Suite struct EnglishAmountTests {
    static let cases: [(String, String, String)] = [
        ("0", "USD", "zero dollars"), ("0.05", "USD", "five cents"), ("0.01", "USD", "one cent"),
        ("0.10", "USD", "ten cents"), ("0.99", "USD", "ninety-nine cents"), ("1", "USD", "one dollar"),
        ("1.01", "USD", "one dollar and one cent"), ("10", "USD", "ten dollars"), ("11", "USD", "eleven dollars"),
        ("19", "USD", "nineteen dollars"), ("20", "USD", "twenty dollars"), ("21", "USD", "twenty-one dollars"),
        ("20.5", "USD", "twenty dollars and fifty cents"),
        ("25.30", "USD", "twenty-five dollars and thirty cents"), ("40", "USD", "forty dollars"),
        ("90.09", "USD", "ninety dollars and nine cents"),
        ("99.99", "USD", "ninety-nine dollars and ninety-nine cents"), ("100", "USD", "one hundred dollars"),
        ("101", "USD", "one hundred one dollars"), ("110", "USD", "one hundred ten dollars"),
        ("115", "USD", "one hundred fifteen dollars"), ("200", "USD", "two hundred dollars"),
        ("999", "USD", "nine hundred ninety-nine dollars"), ("1000", "USD", "one thousand dollars"),
        ("1001", "USD", "one thousand one dollars"), ("1010", "USD", "one thousand ten dollars"),
        ("1100", "USD", "one thousand one hundred dollars"),
        ("1234.56", "USD", "one thousand two hundred thirty-four dollars and fifty-six cents"),
        ("10000", "USD", "ten thousand dollars"), ("12345", "USD", "twelve thousand three hundred forty-five dollars"),
        ("70000", "USD", "seventy thousand dollars"),
        ("100000.10", "USD", "one hundred thousand dollars and ten cents"), ("1000000", "USD", "one million dollars"),
        ("1000001", "USD", "one million one dollars"), ("1001000", "USD", "one million one thousand dollars"),
        ("999999999.99", "USD", "nine hundred ninety-nine million nine hundred ninety-nine thousand nine hundred ninety-nine dollars and ninety-nine cents"),
        ("0007.5", "USD", "seven dollars and fifty cents"), ("1000000000", "USD", "one billion dollars"),
        ("21000000001.01", "USD", "twenty-one billion one dollars and one cent"),
        ("999999999999.99", "USD", "nine hundred ninety-nine billion nine hundred ninety-nine million nine hundred ninety-nine thousand nine hundred ninety-nine dollars and ninety-nine cents"),
        ("1", "EUR", "one euro"), ("2.01", "EUR", "two euros and one cent"),
        ("1.01", "GBP", "one pound and one penny"), ("3.50", "GBP", "three pounds and fifty pence"),
        ("300", "JPY", "three hundred yen"), ("1", "JPY", "one yen"),
        ("25.30", "CNY", "twenty-five yuan and thirty fen"),
    ]

    /// Currencies the grammar's own table lacks: CLDR's English names, Herald's minor units (the
    /// English pack has no clip for them: synthesized).
    @Test(arguments: [("25.30", "MXN", "twenty-five Mexican pesos and thirty centavos"), ("1", "INR", "one Indian rupee"),
                      ("1.500", "BHD", "one Bahraini dinar and five hundred fils")])
    func speaksOtherCurrenciesWithCLDRsNames(amount: String, currency: String, expected: String) throws {
        let parsed = try Amount.parse(amount, currency: try #require(Currency.named(currency)))
        #expect(EnglishAmountGrammar().words(for: parsed).text == expected)
    }

    @Test(arguments: cases)
    func speaks(amount: String, currency: String, expected: String) throws {
        let parsed = try Amount.parse(amount, currency: try #require(Currency.named(currency)))
        let phrase = EnglishAmountGrammar().words(for: parsed)
        #expect(phrase.text == expected)
        // The tokens are the same words, so a voice pack says exactly what synthesis would.
        #expect(phrase.tokens.joined(separator: " ") == expected.replacingOccurrences(of: "-", with: " "))
        #expect(Set(phrase.tokens).isSubset(of: Set(EnglishAmountGrammar().vocabulary)))
    }

    @Test func theTemplateWrapsTheAmount() throws {
        let amount = try Amount.parse("25.30", currency: .usd)
        let phrase = PhraseTemplate.standard(language: "en").fill(EnglishAmountGrammar().words(for: amount))
        #expect(phrase.text == "Payment received: twenty-five dollars and thirty cents")
        #expect(phrase.tokens.first == "payment received")
    }
}

@Suite struct ChineseAmountTests {
    static let cases: [(String, String, String)] = [
        ("0", "CNY", "零元"), ("0.05", "CNY", "五分"), ("0.3", "CNY", "三角"), ("0.35", "CNY", "三角五分"),
        ("0.02", "CNY", "两分"), ("0.2", "CNY", "两角"), ("1", "CNY", "一元"), ("2", "CNY", "两元"),
        ("10", "CNY", "十元"), ("11", "CNY", "十一元"), ("12", "CNY", "十二元"), ("20", "CNY", "二十元"),
        ("22", "CNY", "二十二元"), ("25.30", "CNY", "二十五元三角"), ("25.05", "CNY", "二十五元零五分"),
        ("25.35", "CNY", "二十五元三角五分"), ("100", "CNY", "一百元"), ("101", "CNY", "一百零一元"),
        ("102", "CNY", "一百零二元"), ("110", "CNY", "一百一十元"), ("111", "CNY", "一百一十一元"),
        ("200", "CNY", "两百元"), ("220", "CNY", "两百二十元"), ("1000", "CNY", "一千元"),
        ("1001", "CNY", "一千零一元"), ("1010", "CNY", "一千零一十元"), ("1100", "CNY", "一千一百元"),
        ("2000", "CNY", "两千元"), ("2002", "CNY", "两千零二元"), ("10000", "CNY", "一万元"),
        ("10001", "CNY", "一万零一元"), ("10010", "CNY", "一万零一十元"), ("12000", "CNY", "一万两千元"),
        ("20000", "CNY", "两万元"), ("100000.10", "CNY", "十万元一角"), ("100000.01", "CNY", "十万元零一分"),
        ("105000", "CNY", "十万五千元"), ("1000000", "CNY", "一百万元"), ("1000000.5", "CNY", "一百万元五角"),
        ("10000000", "CNY", "一千万元"), ("20000000", "CNY", "两千万元"), ("100000000", "CNY", "一亿元"),
        ("100000001", "CNY", "一亿零一元"), ("120000000", "CNY", "一亿两千万元"), ("100010000", "CNY", "一亿零一万元"),
        ("999999999.99", "CNY", "九亿九千九百九十九万九千九百九十九元九角九分"),
        ("1000000000", "CNY", "十亿元"), ("200000000000", "CNY", "两千亿元"), ("100000000001", "CNY", "一千亿零一元"),
        ("999999999999.99", "CNY", "九千九百九十九亿九千九百九十九万九千九百九十九元九角九分"),
        ("25.30", "USD", "二十五美元三十美分"), ("300", "JPY", "三百日元"), ("2", "USD", "两美元"),

    ]

    @Test(arguments: cases)
    func speaks(amount: String, currency: String, expected: String) throws {
        let parsed = try Amount.parse(amount, currency: try #require(Currency.named(currency)))
        let phrase = ChineseAmountGrammar().words(for: parsed)
        #expect(phrase.text == expected)
        #expect(phrase.tokens.joined() == expected)
        #expect(Set(phrase.tokens).isSubset(of: Set(ChineseAmountGrammar().vocabulary)))
    }

    @Test func theTemplateWrapsTheAmount() throws {
        let amount = try Amount.parse("25.30", currency: .cny)
        let phrase = PhraseTemplate.standard(language: "zh").fill(ChineseAmountGrammar().words(for: amount))
        #expect(phrase.text == "收款二十五元三角")
        #expect(phrase.tokens.first == "收款")
    }
}

@Suite struct AmountParsingTests {
    @Test func parsesExactlyWithoutFloatingPoint() throws {
        // 0.1 + 0.2 in binary floating point is 0.30000000000000004; here it is 30 cents.
        #expect(try Amount.parse("0.30", currency: .usd).minorUnits == 30)
        #expect(try Amount.parse("999999999.99", currency: .usd).minorUnits == 99_999_999_999)
        #expect(try Amount.parse("012", currency: .jpy).minorUnits == 12)
    }

    /// A till that sends " 25" has a bug worth seeing: space is refused, not trimmed, and named
    /// (a no-break space looks like any other).
    @Test(arguments: [
        (" 25", "' 25' starts with a space;"), ("25 ", "'25 ' ends with a space;"),
        ("\u{A0}25", "'\u{A0}25' starts with a no-break space (U+00A0);"), ("25\t", "ends with a tab (U+0009)"),
        ("25\n", "ends with a line break (U+000A)"), ("\u{2007}25", "starts with a space character (U+2007)"),
        (" ", "amount: empty"),
    ])
    func refusesSpaceAroundTheDigits(text: String, mentions: String) {
        #expect {
            _ = try Amount.parse(text, currency: .usd)
        } throws: { error in
            "\(error)".hasPrefix("amount: ") && "\(error)".contains(mentions)
        }
    }

    @Test(arguments: [
        ("-5", "negative"), ("abc", "not a plain decimal"), ("1.234", "more decimals than USD has"),
        ("1000000000000", "too large"), ("NaN", "not a number"), ("Infinity", "not a number"), ("-inf", "not a number"),
        ("", "empty"), ("1e5", "not a plain decimal"), ("1,000", "not a plain decimal"), ("12.", "not a plain decimal"),
        (".5", "not a plain decimal"), ("0x10", "not a plain decimal"), ("１２", "not a plain decimal"),
    ])
    func refusesWithAClearMessage(text: String, mentions: String) {
        #expect {
            _ = try Amount.parse(text, currency: .usd)
        } throws: { error in
            "\(error)".hasPrefix("amount: ") && "\(error)".contains(mentions)
        }
    }

    @Test func yenHasNoDecimals() {
        #expect(throws: AmountError.tooManyDecimals("5.5", currency: .jpy)) { try Amount.parse("5.5", currency: .jpy) }
    }

    @Test func aLoggedAmountReadsBackAsTheSameValue() throws {
        let amount = try Amount.parse("25.3", currencyCode: "eur", fallback: .usd)
        #expect(amount.description == "25.30 EUR")
        #expect(try Amount.parse(logged: amount.description, fallback: .usd) == amount)
        #expect(try Amount.parse(logged: "7", fallback: .jpy) == Amount(minorUnits: 7, currency: .jpy), "rows logged before the currency was")
        #expect(throws: AmountError.unknownCurrency("XBT")) { try Amount.parse("5", currencyCode: "XBT", fallback: .usd) }
    }

    @Test func paymentsInOneCurrencyAreSummedExactlyAndMixedOnesAreNot() throws {
        let cents = [1999, 2001, 1].map { Amount(minorUnits: $0, currency: .usd) }
        let summary = try #require(PaymentSummary(amounts: cents, language: "en", phrases: .of("en")))
        #expect(summary.total == Amount(minorUnits: 4001, currency: .usd))
        #expect(summary.text == "three payments received, total forty dollars and one cent")
        #expect(PaymentSummary(amounts: cents + [Amount(minorUnits: 5, currency: .eur)], language: "en", phrases: .of("en")) == nil)
    }

    @Test func unknownLanguagesAreNamed() {
        #expect(throws: SpeechError.unknownLanguage("as")) { try AmountGrammars.grammar(for: "as") }
        #expect(throws: SpeechError.unknownLanguage("xx-yy")) { try AmountGrammars.grammar(for: "xx-yy") }
    }

    /// Found by review: four of the largest payments summed past what the English grammar spells
    /// (and past Int64 for a four-decimal currency) crashed the daemon at every start.
    @Test func aSumBeyondWhatHeraldSpeaksIsNoSummary() throws {
        let largest = Amount(minorUnits: Amount.maximumMajorUnits * 100 + 99, currency: .usd)
        #expect(PaymentSummary(amounts: [largest, largest], language: "en", phrases: .of("en")) == nil)
        #expect(PaymentSummary(amounts: Array(repeating: Amount(minorUnits: .max / 2, currency: .usd), count: 3), language: "en", phrases: .of("en")) == nil)
        let pesos = try Amount.parse("25.30", currency: try #require(Currency.named("MXN")))
        #expect(ChineseAmountGrammar().words(for: pesos).text == "二十五墨西哥比索三十分", "CLDR's name, 分 for the minor unit")
        #expect(PaymentSummary(amounts: [Amount(minorUnits: 50_000_000_000_000, currency: .usd)] + [Amount(minorUnits: 1, currency: .usd)],
                               language: "en", phrases: .of("en"))?.text.contains("five hundred billion") == true)
    }

    @Test func aSummaryIsSaidInTheLanguagesOwnPhrases() throws {
        let pesos = [1000, 1500].map { Amount(minorUnits: $0, currency: try! #require(Currency.named("MXN"))) }
        #expect(PaymentSummary(amounts: pesos, language: "es", phrases: .of("es"))?.text == "dos pagos recibidos, total veinticinco pesos mexicanos")
    }
}

import HeraldCore

/// Amounts for the voice to read by its own number rules (issue 50), in the languages
/// `LanguageSources` gives that source: ICU spells no numbers in them that a voice here reads, but
/// espeak-ng (and Piper, which espeak-ng phonemises) reads digits in each, in the Indian system
/// for the Indian languages ("12345678" in Marathi: "ek koti teevis laakh ...").
///
/// Each unit is given as an integer and its name, never as a decimal the voice would read "point
/// seven five": "1234567 भारतीय रुपये आणि 89 पैसे". The currency's name is CLDR's in the plural
/// form for the count, the minor unit's name and the word between the parts the language's
/// (`MinorUnitNames`, `PhraseTable`). Digits go without group separators: a voice reads "1,000"
/// in some of these languages as "one comma zero".
///
/// For a voice pack, the tokens of a number are its groups in the Indian system with their scale
/// words (`IndianScaleWords`): "12", "लाख", "34", "हजार", "5", "शे", "67". Japanese has none yet.
public struct VoiceNumberAmountGrammar: AmountGrammar {
    public let language: String
    let majorAndMinor: String
    let scale: IndianScaleWords?

    /// The grammar for `language` (a tag); nil unless `LanguageSources` gives it this source.
    public init?(language: String) {
        guard LanguageSources.source(for: language) == .voiceNumberRules else { return nil }
        self.language = language.lowercased()
        majorAndMinor = PhraseTable.majorAndMinor(language)
        scale = IndianScaleWords.of(SpeechNames.baseLanguage(language))
    }

    /// True when a voice pack can say this language's amounts: it counts in lakh and crore.
    public var composesFromClips: Bool { scale != nil }

    /// `value` as text (its digits) and as a pack's tokens.
    func number(_ value: Int64) -> (text: String, tokens: [String]) {
        ("\(value)", scale?.tokens(value) ?? ["\(value)"])
    }

    var base: String { SpeechNames.baseLanguage(language) }

    public func words(for amount: Amount) -> AmountPhrase {
        let major = amount.majorUnits, minor = amount.fraction
        let minorName = MinorUnitNames.name(currency: amount.currency.code, language: base)
        var parts: [(text: String, tokens: [String])] = []
        // The major part also when the minor unit has no name here, so the amount is never nothing.
        if major > 0 || minor == 0 || minorName == nil {
            let (name, before) = currencyName(major, amount.currency), spoken = number(major)
            parts.append(before ? ("\(name) \(spoken.text)", [name] + spoken.tokens) : ("\(spoken.text) \(name)", spoken.tokens + [name]))
        }
        if minor > 0, let minorName {
            let name = minorName.form(PluralCategory.of(minor, language: base)), spoken = number(minor)
            parts.append(("\(spoken.text) \(name)", spoken.tokens + [name]))
        }
        guard parts.count == 2 else { return AmountPhrase(text: parts[0].text, tokens: parts[0].tokens) }
        return CLDRAmountGrammar.join(majorAndMinor, major: parts[0], minor: parts[1])
    }

    /// CLDR's name of `currency` for `count`, put into kana for Japanese where CLDR writes kanji.
    func currencyName(_ count: Int64, _ currency: Currency) -> (name: String, before: Bool) {
        let cldr = CLDRAmountGrammar.currencyName(count, currency, language: language)
        guard base == "ja", !KanaCurrencyNames.isKana(cldr.name) else { return cldr }
        return (KanaCurrencyNames.name(currency.code), false)
    }

    /// The numbers 0 to 99 and the scale words (for a language that counts in lakh and crore),
    /// the names of the units in `currencies`, and the joining word.
    public func vocabulary(for currencies: [Currency]) -> [String] {
        var seen = Set<String>(), words: [String] = []
        func add(_ tokens: [String]) { for token in tokens where seen.insert(token).inserted { words.append(token) } }
        add(scale?.vocabulary ?? [])
        for currency in currencies {
            for count: Int64 in [0, 1, 2, 3, 5, 11, 21, 100] { add([currencyName(count, currency).name]) }
            if let minor = MinorUnitNames.name(currency: currency.code, language: base) { add(Set(minor.forms.values).sorted()) }
        }
        add(CLDRAmountGrammar.join(majorAndMinor, major: ("", []), minor: ("", [])).tokens)
        return words
    }

    public var vocabulary: [String] { vocabulary(for: Currency.all) }
}

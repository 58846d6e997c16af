import Foundation
import HeraldCore

/// Amounts in any language CLDR spells numbers in (issue 31): the major and the minor unit spelled
/// out by ICU's rule-based number formats (`NumberFormatter`, `.spellOut`), the currency's name in
/// the plural form CLDR gives for that count, the minor unit's name from Herald's own table
/// (`MinorUnitNames`: CLDR has none), joined as the language's `PhraseTable` says.
/// "veinticinco pesos mexicanos con treinta centavos".
///
/// ICU's spell-out is the form for counting ("uno", "eins"); before a noun a few languages use
/// another, which `beforeNoun` puts right for the endings that change (es "un", "veintiún"; de
/// "ein"; ru "одна", "две" before a feminine noun). ICU marks word parts inside long German and
/// Spanish numbers with soft hyphens (U+00AD): the text has none, the tokens are cut there.
public struct CLDRAmountGrammar: AmountGrammar {
    public let language: String
    /// Between the major and the minor part: the language's table's, else the two side by side
    /// (never English's "and" inside another language).
    let majorAndMinor: String
    /// ICU's spell-out in this language, made with the grammar and used for all its numbers: a
    /// formatter costs far more to make than to use.
    let spellOut: SpellOut

    static let softHyphen: Character = "\u{AD}"

    /// The grammar for `language` (a base code such as `es`, or a tag such as `pt-BR`); nil when
    /// CLDR cannot spell numbers in it (ICU then answers in English, as for Bengali), or when
    /// what it writes cannot be read aloud by the voices Herald has (Japanese: kanji only).
    public init?(language: String) {
        let base = SpeechNames.baseLanguage(language)
        guard !base.isEmpty, !Self.unspeakable.contains(base) else { return nil }
        self.language = language.lowercased()
        majorAndMinor = PhraseTable.majorAndMinor(base)
        spellOut = SpellOut(locale: Self.locale(for: self.language))
        guard base == "en" || Self.hasOwnRules(base, twentyOne: spellOut.words(21)) else { return nil }
    }

    /// Whether ICU spells numbers in `base` by rules of its own. For a language it has none for,
    /// ICU answers in the process's default locale (`LANG=de_DE` gives German for Bengali), or in
    /// English: as it answers for a language that does not exist. The default locale's own
    /// language answers so too, and has rules when that answer is not English.
    static func hasOwnRules(_ base: String, twentyOne: String) -> Bool {
        // Digits are no spell-out (ICU writes "21" for Bengali under a Bengali default locale).
        // (Decimal digits only: 二十一 is words.)
        guard !twentyOne.unicodeScalars.contains(where: { $0.properties.numericType == .decimal }) else { return false }
        if twentyOne != fallbackTwentyOne { return true }
        return base == defaultLanguage && twentyOne != englishTwentyOne
    }

    /// The language of ICU's default locale, as ICU reads it from the environment.
    static let defaultLanguage: String = {
        let environment = ProcessInfo.processInfo.environment
        let setting = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        return SpeechNames.baseLanguage(String(setting.prefix { $0 != "." && $0 != "@" }))
    }()

    static let fallbackTwentyOne = SpellOut(locale: Locale(identifier: "xx")).words(21)
    static let englishTwentyOne = SpellOut(locale: Locale(identifier: "en")).words(21)

    /// Languages whose spell-out CLDR has but no voice here reads: ICU writes Japanese numbers in
    /// kanji, which espeak-ng reads letter by letter as "Chinese letter", and Gujarati's crore as
    /// કરોડ઼, whose nukta it reads as "Hindi letter". Their amounts are the voice's own
    /// (`LanguageSources`).
    static let unspeakable: Set<String> = ["ja", "gu"]

    var base: String { SpeechNames.baseLanguage(language) }

    static func locale(for language: String) -> Locale {
        Locale(identifier: language.replacingOccurrences(of: "-", with: "_"))
    }

    /// `value` in words as said before a noun of `gender`: the text (no soft hyphens) and its
    /// tokens (cut at spaces and soft hyphens, commas dropped), as a voice pack names its clips.
    public func number(_ value: Int64, before gender: MinorUnitNames.Gender = .masculine) -> (text: String, tokens: [String]) {
        let spelled = beforeNoun(spellOut.words(value), gender: gender)
        let text = String(spelled.filter { $0 != Self.softHyphen })
        let tokens = spelled.split { $0 == " " || $0 == Self.softHyphen }
            .map { $0.filter { $0 != "," && $0 != "،" }.lowercased() }
            .filter { !$0.isEmpty }
        return (text, tokens)
    }

    /// Puts the counting forms ICU writes into the forms said before a noun, where they differ.
    func beforeNoun(_ spelled: String, gender: MinorUnitNames.Gender) -> String {
        var words = spelled.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        switch base {
        case "es":
            // Every word of a number said with a unit is followed by another word (mil, millones,
            // or the unit): "veintiún mil", "ciento un pesos"; "una" before a feminine noun.
            let one = gender == .feminine ? "una" : "un"
            words = words.map { word in
                switch word {
                case "uno": one
                case "veintiuno": gender == .feminine ? "veintiuna" : "veintiún"
                default: word
                }
            }
        case "de":
            // "eins" only when counting: "ein Euro", "einhundertein Cent"; "eine" before a feminine noun.
            if let last = words.last, last.hasSuffix("eins") {
                words[words.count - 1] = String(last.dropLast()) + (gender == .feminine ? "e" : "")
            }
        case "ru" where gender == .feminine:
            if words.last == "один" { words[words.count - 1] = "одна" }
            if words.last == "два" { words[words.count - 1] = "две" }
        case "pt" where gender == .feminine:
            if words.last == "um" { words[words.count - 1] = "uma" }
            if words.last == "dois" { words[words.count - 1] = "duas" }
        case "fr" where gender == .feminine:
            if let last = words.last, last.hasSuffix("un") { words[words.count - 1] = last + "e" }
        default:
            break
        }
        return words.joined(separator: " ")
    }

    /// CLDR's name of `currency` for `count`, and whether it goes before the number (Swahili
    /// says "shilingi za Kenya mbili").
    func currencyName(_ count: Int64, _ currency: Currency) -> (name: String, before: Bool) {
        Self.currencyName(count, currency, language: language)
    }

    /// CLDR's name of `currency` for `count` in `language` (a tag), and whether it goes before
    /// the number; the ISO code when CLDR's text holds no name.
    static func currencyName(_ count: Int64, _ currency: Currency, language: String) -> (name: String, before: Bool) {
        let locale = Self.locale(for: language), base = SpeechNames.baseLanguage(language)
        let full = count.formatted(.currency(code: currency.code).presentation(.fullName).precision(.fractionLength(0)).locale(locale))
        let digits = count.formatted(.number.locale(locale))
        let trim = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\u{A0}\u{202F}\u{200E}\u{200F}\u{061C}"))
        guard let range = full.range(of: digits) else { return (currency.code, false) }
        let before = String(full[..<range.lowerBound]).trimmingCharacters(in: trim)
        let after = String(full[range.upperBound...]).trimmingCharacters(in: trim)
        let hasLetters = { (text: String) in text.unicodeScalars.contains { CharacterSet.letters.contains($0) } }
        // Turkish puts the sign before the number and the name after it: "₺2 Türk lirası".
        let name = hasLetters(before) && !hasLetters(after) ? before : after
        // Swahili says the noun first in words ("shilingi moja"), whatever CLDR's order with digits.
        return (name, base == "sw" || name == before)
    }

    /// A unit's name as said after `count`, with "de" where Spanish, Portuguese and French want
    /// it ("un millón de pesos", "un million d’euros"): the text and its tokens (the name is one).
    func unitName(_ name: String, after count: Int64) -> (text: String, tokens: [String]) {
        guard count > 0, count % 1_000_000 == 0, ["es", "pt", "fr"].contains(base) else { return (name, [name.lowercased()]) }
        if base == "fr", let first = name.lowercased().first, "aeiouyéèêh".contains(first) { return ("d’" + name, ["d’", name.lowercased()]) }
        return ("de " + name, ["de", name.lowercased()])
    }

    /// One unit's part: the number and the name, in the order the language says them.
    func part(_ count: Int64, name: String, before: Bool, gender: MinorUnitNames.Gender) -> (text: String, tokens: [String]) {
        let spoken = number(count, before: gender), unit = unitName(name, after: count)
        return before ? ("\(unit.text) \(spoken.text)", unit.tokens + spoken.tokens) : ("\(spoken.text) \(unit.text)", spoken.tokens + unit.tokens)
    }

    /// The minor unit's name for `currency`: the language's, else English's.
    func minorName(_ currency: Currency) -> MinorUnitNames.Name? {
        MinorUnitNames.name(currency: currency.code, language: base) ?? MinorUnitNames.name(currency: currency.code, language: "en")
    }

    public func words(for amount: Amount) -> AmountPhrase {
        let major = amount.majorUnits, minor = amount.fraction
        var parts: [(text: String, tokens: [String])] = []
        // The major part also when the minor unit has no name (none is missing today: English's
        // "cent" stands in), so the amount is never said as nothing.
        if major > 0 || minor == 0 || minorName(amount.currency) == nil {
            let (name, before) = currencyName(major, amount.currency)
            parts.append(part(major, name: name, before: before, gender: .masculine))
        }
        if minor > 0, let minorName = minorName(amount.currency) {
            parts.append(part(minor, name: minorName.form(PluralCategory.of(minor, language: base)), before: false, gender: minorName.gender))
        }
        guard parts.count == 2 else { return AmountPhrase(text: parts[0].text, tokens: parts[0].tokens) }
        return Self.join(majorAndMinor, major: parts[0], minor: parts[1])
    }

    /// `template` ("{major} con {minor}") with both parts in place; its own words are tokens.
    static func join(_ template: String, major: (text: String, tokens: [String]), minor: (text: String, tokens: [String])) -> AmountPhrase {
        let (lead, rest) = split(template, at: "{major}")
        let (middle, tail) = split(rest, at: "{minor}")
        let literal = { (part: String) in [PhraseTemplate.token(for: part)].filter { !$0.isEmpty } }
        return AmountPhrase(text: lead + major.text + middle + minor.text + tail,
                            tokens: literal(lead) + major.tokens + literal(middle) + minor.tokens + literal(tail))
    }

    private static func split(_ text: String, at placeholder: String) -> (String, String) {
        guard let range = text.range(of: placeholder) else { return (text, "") }
        return (String(text[..<range.lowerBound]), String(text[range.upperBound...]))
    }

    /// Every token `words(for:)` can emit for `currencies`: the words of the numbers that make up
    /// 0...999,999,999,999 (each group's 0...999 and the powers of a thousand, Indian grouping's
    /// lakh and crore) and the names.
    public func vocabulary(for currencies: [Currency]) -> [String] {
        var seen = Set<String>(), words: [String] = []
        func add(_ tokens: [String]) { for token in tokens where seen.insert(token).inserted { words.append(token) } }
        var counts: [Int64] = Array(0...1000)
        for power in [Int64(1_000), 1_000_000, 1_000_000_000] { counts += (1...999).map { $0 * power } }
        counts += [100_000, 200_000, 10_000_000, 20_000_000, 100_000_000_000]
        for count in counts {
            add(number(count).tokens)
            add(number(count, before: .feminine).tokens)
        }
        for currency in currencies {
            for count in [Int64(0), 1, 2, 3, 5, 11, 21, 100, 101, 1_000_000, 2_000_000] {
                add(unitName(currencyName(count, currency).name, after: count).tokens)
            }
            if let minor = minorName(currency) { add(Set(minor.forms.values).sorted().map { $0.lowercased() }) }
        }
        add(Self.join(majorAndMinor, major: ("", []), minor: ("", [])).tokens)
        return words
    }

    public var vocabulary: [String] { vocabulary(for: Currency.all) }
}

/// One `NumberFormatter` spelling numbers out in one locale, shared by the grammar's copies.
/// `@unchecked Sendable`: the formatter is only touched under `lock`, and never changed after init.
final class SpellOut: @unchecked Sendable {
    private let formatter = NumberFormatter()
    private let lock = NSLock()

    init(locale: Locale) {
        formatter.locale = locale
        formatter.numberStyle = .spellOut
    }

    /// ICU's spell-out of `value`, soft hyphens kept.
    func words(_ value: Int64) -> String {
        lock.withLock { formatter.string(from: NSNumber(value: value)) } ?? "\(value)"
    }
}

import Foundation
import FuzzSupport
import HeraldCore
@testable import Speech

/// `Amount.parse`, all three entry points, and the amount grammars on what parses.
///
/// Input: the amount text, then optionally a newline and a currency code (`25.30\nEUR`). The text
/// goes to `parse(_:currencyCode:fallback:)` with the code, to `parse(_:currency:)` in every
/// currency, and (with the code after a space) to `parse(logged:fallback:)`. Every amount that
/// parses must equal the text's decimal value exactly, read back from its own text, and be said
/// by the English and Mandarin grammars in words that give back the same units and digits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (head, tail) = Fuzz.split(Fuzz.bytes(data, size), at: UInt8(ascii: "\n"))
    let text = String(decoding: head, as: UTF8.self)
    let code = tail.map { String(decoding: $0, as: UTF8.self) }

    if let amount = try? Amount.parse(text, currencyCode: code, fallback: .usd) {
        Fuzz.require(code == nil || Currency.named(code!) == amount.currency, "currency \(amount.currency.code) for code \(code!)")
        check(amount, parsedFrom: text)
    }
    let logged = code.map { "\(text) \($0)" } ?? text
    if let amount = try? Amount.parse(logged: logged, fallback: .eur) {
        check(amount, parsedFrom: String(logged.split(separator: " ").first ?? ""))
    }
    for currency in Currency.all {
        guard let amount = try? Amount.parse(text, currency: currency) else { continue }
        Fuzz.require(amount.currency == currency, "parsed in \(amount.currency.code), asked \(currency.code)")
        check(amount, parsedFrom: text)
    }
    return 0
}

private func check(_ amount: Amount, parsedFrom text: String) {
    let scale = amount.scale
    Fuzz.require(amount.minorUnits >= 0, "negative amount \(amount.minorUnits) from '\(text)'")
    Fuzz.require(amount.majorUnits <= Amount.maximumMajorUnits, "\(amount) from '\(text)' is above the maximum")
    // Exact: the minor units are the text's decimal value times the scale (no binary floating point).
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if let decimal = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")) {
        Fuzz.require(Decimal(amount.minorUnits) == decimal * Decimal(scale), "'\(text)' parsed as \(amount)")
    } else {
        Fuzz.require(false, "'\(text)' parsed as \(amount) but is no decimal")
    }
    // Its own texts read back to it.
    Fuzz.require((try? Amount.parse(amount.decimalText, currency: amount.currency)) == amount, "\(amount) does not read back")
    Fuzz.require((try? Amount.parse(logged: amount.description, fallback: .jpy)) == amount, "logged \(amount) does not read back")

    let english = EnglishAmountGrammar().words(for: amount)
    let chinese = ChineseAmountGrammar().words(for: amount)
    // The hand grammars' own currencies are checked word by word; any other ISO code is said
    // with CLDR's names (CLDRAmountTests read those back with ICU's parser).
    if EnglishAmountGrammar.ownCurrencies.contains(amount.currency.code) {
        checkEnglish(english, amount)
        checkChinese(chinese, amount)
    } else {
        Fuzz.require(!english.text.isEmpty && !english.text.contains("\u{AD}"), "'\(english.text)' for \(amount)")
        Fuzz.require(!chinese.text.isEmpty, "no Mandarin words for \(amount)")
    }
    for language in ["en", "zh"] {
        let filled = PhraseTemplate.standard(language: language).fill(language == "en" ? english : chinese)
        Fuzz.require(filled.text.count > (language == "en" ? english : chinese).text.count, "template lost the amount")
    }
}

/// The English words give back the amount: number words, then the unit, singular for one.
private func checkEnglish(_ phrase: AmountPhrase, _ amount: Amount) {
    let grammar = EnglishAmountGrammar()
    let vocabulary = Set(grammar.vocabulary)
    Fuzz.require(!phrase.tokens.isEmpty, "no words for \(amount)")
    Fuzz.require(phrase.tokens.allSatisfy(vocabulary.contains), "\(phrase.tokens) has words outside the vocabulary")
    let textWords = phrase.text.replacingOccurrences(of: "-", with: " ").split(separator: " ").map(String.init)
    Fuzz.require(textWords == phrase.tokens, "text '\(phrase.text)' and tokens \(phrase.tokens) differ")
    let units = EnglishAmountGrammar.units(amount.currency)
    var major: Int64?, minor: Int64?
    var number: [String] = []
    for token in phrase.tokens {
        if token == "and" {
            Fuzz.require(number.isEmpty && major != nil, "'and' misplaced in '\(phrase.text)'")
            continue
        }
        let isMajor = token == units.major.0 || token == units.major.1
        let isMinor = !isMajor && (token == units.minor.0 || token == units.minor.1)
        guard isMajor || isMinor else { number.append(token); continue }
        let value = englishValue(number)
        Fuzz.require(value != nil, "'\(number.joined(separator: " "))' is not an English number (\(amount))")
        let unit = isMajor ? units.major : units.minor
        Fuzz.require(token == (value == 1 ? unit.0 : unit.1) || unit.0 == unit.1, "'\(phrase.text)': wrong number for \(token)")
        if isMajor { Fuzz.require(major == nil && minor == nil, "two major units"); major = value } else {
            Fuzz.require(minor == nil, "two minor units"); minor = value
        }
        number = []
    }
    Fuzz.require(number.isEmpty, "'\(phrase.text)' ends without a unit")
    Fuzz.require(major != nil || minor != nil, "'\(phrase.text)' has no unit")
    Fuzz.require((major ?? 0) == amount.majorUnits && (minor ?? 0) == amount.fraction,
                 "'\(phrase.text)' says \(major ?? 0) and \(minor ?? 0), the amount is \(amount)")
}

private func englishValue(_ words: [String]) -> Int64? {
    guard !words.isEmpty else { return nil }
    var total: Int64 = 0, group: Int64 = 0
    for word in words {
        if let value = EnglishAmountGrammar.ones.firstIndex(of: word) {
            group += Int64(value)
        } else if let value = EnglishAmountGrammar.tens.firstIndex(of: word), value >= 2 {
            group += Int64(value) * 10
        } else if word == "hundred" {
            group *= 100
        } else if let size = ["thousand": Int64(1000), "million": 1_000_000, "billion": 1_000_000_000][word] {
            total += group * size
            group = 0
        } else {
            return nil
        }
    }
    return total + group
}

/// The Mandarin characters give back the amount; one 零 for a run of zeros, none before a unit.
private func checkChinese(_ phrase: AmountPhrase, _ amount: Amount) {
    let grammar = ChineseAmountGrammar()
    let vocabulary = Set(grammar.vocabulary)
    Fuzz.require(phrase.tokens.allSatisfy(vocabulary.contains), "\(phrase.tokens) has characters outside the vocabulary")
    Fuzz.require(phrase.text == phrase.tokens.joined(), "text '\(phrase.text)' is not its tokens")
    let (majorName, minorName) = ChineseAmountGrammar.units(amount.currency) ?? ("元", nil)
    // Unit -> its value in minor units.
    var unitValues: [String: Int64] = [majorName: amount.scale]
    if amount.currency == .cny { unitValues["角"] = 10; unitValues["分"] = 1 } else if let minorName { unitValues[minorName] = 1 }
    var total: Int64 = 0
    var number: [String] = []
    var seen: Set<String> = []
    for (index, token) in phrase.tokens.enumerated() {
        if index > 0 { Fuzz.require(!(token == "零" && phrase.tokens[index - 1] == "零"), "'\(phrase.text)' has 零零") }
        guard let unit = unitValues[token] else { number.append(token); continue }
        Fuzz.require(seen.insert(token).inserted, "'\(phrase.text)' says \(token) twice")
        Fuzz.require(number.last != "零" || number == ["零"], "'\(phrase.text)' has 零 before \(token)")
        let spoken = number.first == "零" && number.count > 1 ? Array(number.dropFirst()) : number
        guard let value = chineseValue(spoken) else {
            Fuzz.require(false, "'\(spoken.joined())' is not a Mandarin number (\(amount))")
            return
        }
        total += value * unit
        number = []
    }
    Fuzz.require(number.isEmpty, "'\(phrase.text)' ends without a unit")
    Fuzz.require(total == amount.minorUnits, "'\(phrase.text)' says \(total) minor units, the amount is \(amount)")
}

private func chineseValue(_ characters: [String]) -> Int64? {
    guard !characters.isEmpty else { return nil }
    var total: Int64 = 0, section: Int64 = 0
    var digit: Int64?
    for character in characters {
        if let value = ChineseAmountGrammar.digits.firstIndex(of: character) ?? (character == "两" ? 2 : nil) {
            if value == 0 { continue }
            guard digit == nil else { return nil }  // two digits without a place between them
            digit = Int64(value)
            continue
        }
        let place: Int64
        switch character {
        case "十": place = 10
        case "百": place = 100
        case "千": place = 1000
        case "万", "亿":
            let size: Int64 = character == "万" ? 10_000 : 100_000_000
            total += (section + (digit ?? 0)) * size
            section = 0
            digit = nil
            continue
        default: return nil
        }
        // Only 十 may stand without its digit (十五); 百 and 千 always have one.
        guard digit != nil || place == 10 else { return nil }
        section += (digit ?? 1) * place
        digit = nil
    }
    return total + section + (digit ?? 0)
}

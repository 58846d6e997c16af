import Synchronization
import HeraldCore

/// An amount put into words: the text for a synthesizer, and the same words as tokens for a
/// voice pack (each token names one recorded clip).
public struct AmountPhrase: Sendable, Equatable {
    public var text: String
    public var tokens: [String]

    public init(text: String, tokens: [String]) {
        self.text = text
        self.tokens = tokens
    }
}

/// A language's way of saying amounts.
public protocol AmountGrammar: Sendable {
    var language: String { get }
    /// The amount alone: "twenty-five dollars and thirty cents".
    func words(for amount: Amount) -> AmountPhrase
    /// Every token `words(for:)` can emit, for building a complete voice pack.
    var vocabulary: [String] { get }
    /// Every token `words(for:)` can emit for amounts in `currencies` (a CLDR language names each
    /// currency its own way; the hand grammars know theirs).
    func vocabulary(for currencies: [Currency]) -> [String]
}

extension AmountGrammar {
    public func vocabulary(for currencies: [Currency]) -> [String] { vocabulary }
}

/// The grammars Herald ships: English and Mandarin by hand, the languages `LanguageSources` gives
/// the voice's number rules through `VoiceNumberAmountGrammar`, every other language CLDR spells
/// numbers in through `CLDRAmountGrammar`.
public enum AmountGrammars {
    /// The hand-written grammars (their forms are exactly what their tests say).
    public static let all: [any AmountGrammar] = [EnglishAmountGrammar(), ChineseAmountGrammar()]

    /// The grammar for `language` (`en`, `en-us`, `zh`, `cmn`, `es`, `pt-BR`...), made once per
    /// tag: making ICU's spell-out costs far more than using it (0.1 to 5.5 ms in a release build,
    /// Russian's rules the most: docs/performance.md), and it is made on the way to a payment's first word.
    /// - Throws: `SpeechError.unknownLanguage` when neither CLDR nor a voice's number rules say amounts in it.
    public static func grammar(for language: String) throws -> any AmountGrammar {
        let base = SpeechNames.baseLanguage(language)
        // English and Mandarin are the same grammar for every tag.
        let key = base == "en" || base == "zh" ? base : language.lowercased()
        if let known = made.withLock({ $0[key] }) { return known }
        guard let grammar = makeGrammar(for: language) else { throw SpeechError.unknownLanguage(language) }
        // Tags come from requests: a bounded number of those that work are kept (one that does
        // not is refused, and never takes a place), the rest made each time.
        made.withLock { if $0.count < 64 { $0[key] = grammar } }
        return grammar
    }

    /// A new grammar for `language`, nil when neither CLDR nor a voice's number rules say amounts in it.
    public static func makeGrammar(for language: String) -> (any AmountGrammar)? {
        switch SpeechNames.baseLanguage(language) {
        case "en": EnglishAmountGrammar()
        case "zh": ChineseAmountGrammar()
        default: VoiceNumberAmountGrammar(language: language) ?? CLDRAmountGrammar(language: language)
        }
    }

    /// Where `language`'s amounts come from: the table's row, else CLDR when ICU spells them;
    /// nil when Herald cannot say amounts in it.
    public static func source(for language: String) -> AmountSource? {
        if let listed = LanguageSources.source(for: language) { return listed }
        return (try? grammar(for: language)) == nil ? nil : .cldr
    }

    private static let made = Mutex<[String: any AmountGrammar]>([:])

    /// The languages with a phrase table whose amounts Herald can say, for messages and status
    /// (found once: each costs a spell-out formatter).
    public static let covered: [String] = PhraseTable.builtIn.keys.sorted().filter { (try? grammar(for: $0)) != nil }
}

/// A phrase around an amount: "Payment received: {amount}".
public struct PhraseTemplate: Sendable, Equatable {
    public var template: String

    public init(_ template: String) { self.template = template }

    /// "Payment received: {amount}" in `language`'s phrase table, English's when it has none.
    public static func standard(language: String) -> PhraseTemplate {
        PhraseTemplate(PhraseTable.of(language).paymentReceived)
    }

    /// The template filled with `amount`; the literal parts become one token each.
    public func fill(_ amount: AmountPhrase) -> AmountPhrase {
        let parts = template.components(separatedBy: "{amount}")
        var tokens: [String] = []
        var text = ""
        for (index, part) in parts.enumerated() {
            text += part
            let token = Self.token(for: part)
            if !token.isEmpty { tokens.append(token) }
            if index < parts.count - 1 {
                text += amount.text
                tokens += amount.tokens
            }
        }
        return AmountPhrase(text: text, tokens: tokens)
    }

    /// The literal parts' tokens ("payment received").
    public var literalTokens: [String] {
        template.components(separatedBy: "{amount}").map(Self.token(for:)).filter { !$0.isEmpty }
    }

    /// A literal as a token: lowercased, punctuation dropped, spaces collapsed.
    static func token(for literal: String) -> String {
        let kept = literal.lowercased().unicodeScalars.filter {
            CharacterSet.letters.contains($0) || CharacterSet.decimalDigits.contains($0) || $0 == " "
        }
        return String(String.UnicodeScalarView(kept)).split(separator: " ").joined(separator: " ")
    }
}

import Foundation

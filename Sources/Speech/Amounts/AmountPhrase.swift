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
}

/// The grammars Herald ships.
public enum AmountGrammars {
    public static let all: [any AmountGrammar] = [EnglishAmountGrammar(), ChineseAmountGrammar()]

    /// The grammar for `language` (`en`, `en-us`, `zh`, `cmn`...).
    public static func grammar(for language: String) throws -> any AmountGrammar {
        let base = language.lowercased().split(separator: "-").first.map(String.init) ?? ""
        switch base {
        case "en": return EnglishAmountGrammar()
        case "zh", "cmn": return ChineseAmountGrammar()
        default: throw SpeechError.unknownLanguage(language)
        }
    }
}

/// A phrase around an amount: "Payment received: {amount}".
public struct PhraseTemplate: Sendable, Equatable {
    public var template: String

    public init(_ template: String) { self.template = template }

    public static func standard(language: String) -> PhraseTemplate {
        language.lowercased().hasPrefix("zh") || language.lowercased() == "cmn"
            ? PhraseTemplate("收款{amount}") : PhraseTemplate("Payment received: {amount}")
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

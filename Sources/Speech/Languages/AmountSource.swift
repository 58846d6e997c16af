import HeraldCore

/// Where a language's amount words come from (issue 50); docs/languages.md shows the same table.
public enum AmountSource: String, Sendable, CaseIterable {
    /// Herald's own grammar, exactly what its tests say (English, Mandarin).
    case handGrammar = "hand grammar"
    /// ICU's spell-out rules and CLDR's currency names (`CLDRAmountGrammar`).
    case cldr = "CLDR"
    /// The voice's own number rules: integer digits for the voice to read, CLDR's currency names
    /// (`VoiceNumberAmountGrammar`).
    case voiceNumberRules = "voice number rules"
}

/// One row of the table: a language, its amounts' source and why.
public struct LanguageSource: Sendable, Equatable {
    public var language: String
    public var source: AmountSource
    public var reason: String
}

/// Which source each language Herald has phrases for takes its amounts from, and why. A language
/// not listed takes CLDR when ICU spells numbers in it (`CLDRAmountGrammar` decides).
public enum LanguageSources {
    /// Every language with a phrase table, in the table's order.
    public static let table: [LanguageSource] = handWritten + cldr + voice

    /// The source for `language` (a tag); nil for one no row names.
    public static func source(for language: String) -> AmountSource? {
        let base = SpeechNames.baseLanguage(language)
        return table.first { $0.language == base }?.source
    }

    private static let handWritten: [LanguageSource] = [
        .init(language: "en", source: .handGrammar, reason: "exact grammar; CLDR's names for currencies it has none of"),
        .init(language: "zh", source: .handGrammar, reason: "exact grammar with 角 and 分, 两 and 零 where Mandarin says them"),
    ]

    private static let cldr: [LanguageSource] = ["es", "pt", "fr", "de", "id", "vi", "sw", "ar", "tr", "ru"].map {
        .init(language: $0, source: .cldr, reason: "ICU spells it; parsed back by ICU in the tests")
    } + [
        .init(language: "hi", source: .cldr, reason: "ICU spells it; espeak-ng reads the words as it reads the digits (cross-checked in the tests)"),
        .init(language: "ta", source: .cldr, reason: "ICU spells it; espeak-ng reads the words as it reads the digits (cross-checked in the tests)"),
    ]

    /// ICU here has no spell-out rules for these (it answers in English, or in digits), or writes
    /// what no voice here reads (gu, ja); espeak-ng reads digits in each by its own rules, lakh and crore
    /// included.
    private static let voice: [LanguageSource] = ["mr", "te", "kn", "ml", "bn", "pa", "or", "ur"].map {
        .init(language: $0, source: .voiceNumberRules, reason: "ICU has no spell-out rules for it; espeak-ng reads digits in the Indian system")
    } + [
        .init(language: "gu", source: .voiceNumberRules,
              reason: "ICU spells it, but writes crore as કરોડ઼, whose nukta espeak-ng reads as \"Hindi letter\"; espeak-ng reads the digits right"),
        .init(language: "ja", source: .voiceNumberRules,
              reason: "ICU writes kanji, which espeak-ng reads as \"Chinese letter\"; espeak-ng reads digits (man, oku) and kana"),
    ]
}

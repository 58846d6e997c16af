import HeraldCore

extension PhraseTable {
    /// The table of `language` (a tag), English's when Herald has none for it.
    public static func of(_ language: String) -> PhraseTable {
        builtIn[SpeechNames.baseLanguage(language)] ?? english
    }

    /// True when `language` has a table of its own (else its phrases are English's).
    public static func has(_ language: String) -> Bool { builtIn[SpeechNames.baseLanguage(language)] != nil }

    static var english: PhraseTable {
        guard let table = builtIn["en"] else { preconditionFailure("the English phrase table is missing") }
        return table
    }
}

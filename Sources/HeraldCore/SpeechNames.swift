/// The shapes a language and a voice name may have, wherever they come from (a request, the
/// config). They are checked before either reaches an engine: a voice becomes an argument of the
/// command engine and a file name inside espeak-ng's data folder.
public enum SpeechNames {
    /// A language tag: letters, digits and `-`, starting with a letter, at most 35 characters
    /// (BCP 47's longest practical tag): `en`, `zh-cmn`, `en-gb-x-rp`. No `/` or `.`.
    public static func isLanguageTag(_ text: String) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter, text.count <= 35, text.last != "-" else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }

    /// A voice name: `^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$`, so `en-us+f3` or `en_US-lessac-medium`,
    /// never an option (`-w...`) or a path (`../x`).
    public static func isVoiceName(_ text: String) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter || first.isNumber, text.count <= 64 else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_.+-".contains($0)) }
    }

    /// The language a tag is a form of, as packs, grammars and phrase tables are named: `pt-BR`
    /// and `pt_BR` are `pt`; Mandarin's `cmn` is `zh`.
    public static func baseLanguage(_ tag: String) -> String {
        let base = tag.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? ""
        return base == "cmn" ? "zh" : base
    }

    /// A tag as `speech.phrases` keeps it: lowercased with hyphens (`pt_BR` is `pt-br`), a bare
    /// language as its base (`cmn` is `zh`).
    public static func phraseTag(_ tag: String) -> String {
        let written = String(tag.lowercased().map { $0 == "_" ? "-" : $0 })
        return written.contains("-") ? written : baseLanguage(written)
    }
}

import HeraldCore

/// The name of a currency's minor unit in a language (CLDR has none): cents, centavos, paise.
///
/// Each language has a default ("*", its word for a cent) and overrides where a currency's minor
/// unit has its own name. Currencies whose minor unit is never said (JPY, IDR, VND, KRW) need no entry.
/// Names borrowed into a language are written in plain letters (en "kurus", not "kuruş") so that
/// synthesizers of that language can read them.
public enum MinorUnitNames {
    /// Grammatical gender of a noun, for the number word before it (es "un", ru "одна", de "ein").
    public enum Gender: Sendable { case masculine, feminine, neuter }

    /// One name in every plural form the language uses, and its gender.
    public struct Name: Sendable, Equatable {
        public var forms: [PluralCategory: String]   // at least .other
        public var gender: Gender

        /// A name; `forms` should hold at least `.other`.
        public init(forms: [PluralCategory: String], gender: Gender) {
            self.forms = forms
            self.gender = gender
        }

        /// The form for `category`, else `.other`'s.
        public func form(_ category: PluralCategory) -> String {
            forms[category] ?? forms[.other] ?? ""
        }
    }

    /// The minor unit's name for `currency` (ISO code, upper case) in `language` (base code); nil when the table has none for that language.
    public static func name(currency: String, language: String) -> Name? {
        guard let names = table[SpeechNames.baseLanguage(language)] else { return nil }
        return names[currency.uppercased()] ?? names["*"]
    }

    static let table: [String: [String: Name]] = [
        "en": english, "zh": mandarin, "es": spanish, "pt": portuguese, "fr": french, "de": german,
        "hi": hindi, "ta": tamil, "bn": bengali, "id": indonesian, "vi": vietnamese, "sw": swahili,
        "ar": arabic, "tr": turkish, "ru": russian, "ja": japanese, "mr": marathi, "te": telugu,
        "kn": kannada, "ml": malayalam, "pa": punjabi, "or": odia, "gu": gujarati, "ur": urdu,
    ]

    // One literal per language keeps each dictionary small for the type checker.

    private static let english: [String: Name] = [
        "*": .pair("cent", "cents"),
        "GBP": .pair("penny", "pence"),
        "CNY": .same("fen"),  // as EnglishAmountGrammar says it
        "MXN": .pair("centavo", "centavos"),
        "BRL": .pair("centavo", "centavos"),
        "INR": .pair("paisa", "paise"),
        "NGN": .same("kobo"),
        "EGP": .pair("piastre", "piastres"),
        "TRY": .same("kurus"),
        "RUB": .pair("kopek", "kopeks"),
        // The thousandths of the three-decimal currencies (no language here has its own word).
        "BHD": .same("fils"), "KWD": .same("fils"), "JOD": .same("fils"), "IQD": .same("fils"),
        "OMR": .same("baisa"), "TND": .pair("millime", "millimes"), "LYD": .pair("dirham", "dirhams"),
    ]

    /// Only for completeness: ChineseAmountGrammar says amounts itself (角 and 分 for the yuan).
    private static let mandarin: [String: Name] = [
        "*": .same("分"),
        "USD": .same("美分"),
        "EUR": .same("欧分"),
        "GBP": .same("便士"),
        "RUB": .same("戈比"),
    ]

    private static let spanish: [String: Name] = [
        "*": .pair("centavo", "centavos"),
        "EUR": .pair("céntimo", "céntimos"),
        "GBP": .pair("penique", "peniques"),
        "CNY": .same("fen"),
        "INR": .pair("paisa", "paisas", .feminine),
        "NGN": .pair("kobo", "kobos"),
        "EGP": .pair("piastra", "piastras", .feminine),
        "TRY": .same("kurus"),
        "RUB": .pair("kopek", "kopeks"),
    ]

    private static let portuguese: [String: Name] = [
        "*": .pair("centavo", "centavos"),
        "EUR": .pair("cêntimo", "cêntimos"),
        "GBP": .pair("pêni", "pence"),
        "CNY": .same("fen"),
        "INR": .pair("paisa", "paisas", .feminine),
        "NGN": .pair("kobo", "kobos"),
        "EGP": .pair("piastra", "piastras", .feminine),
        "TRY": .same("kurus"),
        "RUB": .pair("copeque", "copeques"),
    ]

    /// "centime" also for the euro: what French speakers say, though "cent" is the official word.
    private static let french: [String: Name] = [
        "*": .pair("centime", "centimes"),
        "GBP": .pair("penny", "pence"),
        "CNY": .same("fen"),
        "INR": .pair("paisa", "paisas"),
        "NGN": .pair("kobo", "kobos"),
        "EGP": .pair("piastre", "piastres", .feminine),
        "TRY": .same("kurus"),
        "RUB": .pair("kopeck", "kopecks"),
    ]

    /// German keeps the singular after numbers for these units ("zwei Cent").
    private static let german: [String: Name] = [
        "*": .same("Cent"),
        "GBP": .pair("Penny", "Pence"),
        "CNY": .same("Fen"),
        "INR": .pair("Paisa", "Paise"),
        "NGN": .same("Kobo"),
        "EGP": .same("Piaster"),
        "TRY": .same("Kurus"),
        "RUB": .pair("Kopeke", "Kopeken", .feminine),
    ]

    /// hi and bn count 0 as `one`; minor parts of 0 are never said, so that costs nothing.
    private static let hindi: [String: Name] = [
        "*": .same("सेंट"),
        "INR": .pair("पैसा", "पैसे"),
        "GBP": .pair("पेनी", "पेंस"),
        "NGN": .same("कोबो"),
        "RUB": .same("कोपेक"),
    ]

    /// Tamil uses the singular after a number in amounts ("ஐம்பது பைசா").
    private static let tamil: [String: Name] = [
        "*": .same("சென்ட்"),
        "INR": .same("பைசா"),
        "GBP": .same("பென்ஸ்"),
    ]

    private static let bengali: [String: Name] = [
        "*": .same("সেন্ট"),
        "INR": .same("পয়সা"),
        "BDT": .same("পয়সা"),
    ]

    // id, vi, sw and ja have no plural after numbers and no gender: one form each.

    private static let indonesian: [String: Name] = [
        "*": .same("sen"),
        "INR": .same("paisa"),
        "NGN": .same("kobo"),
    ]

    private static let vietnamese: [String: Name] = [
        "*": .same("xu"),
    ]

    private static let swahili: [String: Name] = [
        "*": .same("senti"),
    ]

    /// Arabic's counted noun: singular for 1, dual for 2, plural for 3–10, accusative singular
    /// for 11–99, plain singular for 100 and up (CLDR's one/two/few/many/other).
    private static let arabic: [String: Name] = [
        "*": .arabic(one: "سنت", two: "سنتان", few: "سنتات", many: "سنتًا", other: "سنت"),
        "EGP": .arabic(one: "قرش", two: "قرشان", few: "قروش", many: "قرشًا", other: "قرش"),
    ]

    /// Turkish keeps the singular after numbers ("otuz kuruş").
    private static let turkish: [String: Name] = [
        "*": .same("sent"),
        "TRY": .same("kuruş"),
        "GBP": .same("peni"),
        "RUB": .same("kopek"),
    ]

    private static let russian: [String: Name] = [
        "*": .russian(one: "цент", few: "цента", many: "центов", gender: .masculine),
        "RUB": .russian(one: "копейка", few: "копейки", many: "копеек", gender: .feminine),
        "GBP": .russian(one: "пенс", few: "пенса", many: "пенсов", gender: .masculine),
        "INR": .russian(one: "пайса", few: "пайсы", many: "пайс", gender: .feminine),
        "EGP": .russian(one: "пиастр", few: "пиастра", many: "пиастров", gender: .masculine),
        "TRY": .russian(one: "куруш", few: "куруша", many: "курушей", gender: .masculine),
        "NGN": .same("кобо", .neuter),  // indeclinable
    ]

    private static let japanese: [String: Name] = [
        "*": .same("セント"),
        "GBP": .same("ペンス"),
        "INR": .same("パイサ"),
    ]

    // The Indian languages of issue 50: the rupee's paise, and a cent for every other currency.
    // Machine-written and unchecked, as their phrase tables.

    private static let marathi: [String: Name] = [
        "*": .same("सेंट"),
        "INR": .pair("पैसा", "पैसे"),
    ]

    private static let telugu: [String: Name] = [
        "*": .pair("సెంటు", "సెంట్లు"),
        "INR": .pair("పైసా", "పైసలు"),
    ]

    private static let kannada: [String: Name] = [
        "*": .same("ಸೆಂಟ್"),
        "INR": .same("ಪೈಸೆ"),
    ]

    private static let malayalam: [String: Name] = [
        "*": .same("സെന്റ്"),
        "INR": .same("പൈസ"),
    ]

    private static let punjabi: [String: Name] = [
        "*": .same("ਸੈਂਟ"),
        "INR": .pair("ਪੈਸਾ", "ਪੈਸੇ"),
    ]

    private static let odia: [String: Name] = [
        "*": .same("ସେଣ୍ଟ"),
        "INR": .same("ପଇସା"),
    ]

    private static let gujarati: [String: Name] = [
        "*": .same("સેન્ટ"),
        "INR": .pair("પૈસો", "પૈસા"),
    ]

    /// The Pakistani and the Indian rupee both have paise.
    private static let urdu: [String: Name] = [
        "*": .same("سینٹ"),
        "INR": .pair("پیسہ", "پیسے"),
        "PKR": .pair("پیسہ", "پیسے"),
    ]
}

extension MinorUnitNames.Name {
    /// One word for every count: de "Cent", ta "பைசா", id "sen".
    fileprivate static func same(_ word: String, _ gender: MinorUnitNames.Gender = .masculine) -> Self {
        Self(forms: [.other: word], gender: gender)
    }

    /// Singular for `one`, plural for the rest (en, es, pt, fr, de, hi); `many` (exact millions)
    /// falls back to the plural.
    fileprivate static func pair(
        _ one: String, _ other: String, _ gender: MinorUnitNames.Gender = .masculine
    ) -> Self {
        Self(forms: [.one: one, .other: other], gender: gender)
    }

    /// Russian's three integer forms. `other` is CLDR's category for fractions, which whole minor
    /// units never reach; it gets the `few` form (genitive singular), as CLDR's own names do.
    fileprivate static func russian(
        one: String, few: String, many: String, gender: MinorUnitNames.Gender
    ) -> Self {
        Self(forms: [.one: one, .few: few, .many: many, .other: few], gender: gender)
    }

    /// Arabic's forms; `zero` is never said for a minor part and falls back to `other`.
    fileprivate static func arabic(one: String, two: String, few: String, many: String, other: String) -> Self {
        Self(forms: [.one: one, .two: two, .few: few, .many: many, .other: other], gender: .masculine)
    }
}

/// CLDR's plural categories for cardinal numbers.
public enum PluralCategory: String, Sendable, Hashable, CaseIterable {
    case zero, one, two, few, many, other

    /// The category of the non-negative integer `n` in `language` (base code), by CLDR's rules (the languages above written out; any other language, mr, te, ml, or and ur among them: one for 1, else other).
    ///
    /// Hand-written because Foundation on Linux has no plural-rules API; these integer rules were
    /// checked against ICU's `uplrules_select` with no mismatch (issue 31 research, section 2d).
    /// A negative `n` counts as its magnitude, as in CLDR.
    public static func of(_ n: Int64, language: String) -> PluralCategory {
        let n = n.magnitude  // UInt64: no overflow for Int64.min
        switch SpeechNames.baseLanguage(language) {
        case "zh", "ja", "id", "vi":
            return .other
        case "en", "de", "sw", "ta", "tr":
            return n == 1 ? .one : .other
        case "hi", "bn", "gu", "kn", "pa":
            // hi, bn, gu, kn: i = 0 or n = 1; pa: n = 0..1. The same for whole numbers.
            return n <= 1 ? .one : .other
        case "fr", "pt":
            return n <= 1 ? .one : (n % 1_000_000 == 0 ? .many : .other)
        case "es":
            return n == 1 ? .one : (n != 0 && n % 1_000_000 == 0 ? .many : .other)
        case "ru":
            let mod10 = n % 10, mod100 = n % 100
            if mod10 == 1 && mod100 != 11 { return .one }
            if (2...4).contains(mod10) && !(12...14).contains(mod100) { return .few }
            return .many
        case "ar":
            if n == 0 { return .zero }
            if n == 1 { return .one }
            if n == 2 { return .two }
            let mod100 = n % 100
            if (3...10).contains(mod100) { return .few }
            if (11...99).contains(mod100) { return .many }
            return .other
        default:
            return n == 1 ? .one : .other
        }
    }
}

import HeraldCore

extension PhraseTable {
    /// The table of `language` (a tag), English's when Herald has none for it.
    public static func of(_ language: String) -> PhraseTable {
        builtIn[SpeechNames.baseLanguage(language)] ?? english
    }

    /// True when `language` has a table of its own (else its phrases are English's).
    public static func has(_ language: String) -> Bool { builtIn[SpeechNames.baseLanguage(language)] != nil }

    /// What joins an amount's major and minor parts in `language`: its table's, else the two
    /// side by side, so no English "and" is said inside another language.
    static func majorAndMinor(_ language: String) -> String {
        builtIn[SpeechNames.baseLanguage(language)]?.majorAndMinor ?? "{major} {minor}"
    }

    /// The table with `overrides` (`speech.phrases`) in place of its own phrases.
    public func replacing(_ overrides: [PhraseKey: String]) -> PhraseTable {
        var table = self
        for (phrase, template) in overrides { table[keyPath: Self.property(phrase)] = template }
        return table
    }

    /// The template of `phrase`.
    public func phrase(_ phrase: PhraseKey) -> String { self[keyPath: Self.property(phrase)] }

    /// The property that holds `phrase`.
    static func property(_ phrase: PhraseKey) -> WritableKeyPath<PhraseTable, String> {
        switch phrase {
        case .payment: \.paymentReceived
        case .summary: \.paymentsSummary
        case .quiet: \.whileItWasQuiet
        case .test: \.test
        case .appointment: \.appointmentSoon
        case .appointmentNow: \.appointmentNow
        case .appointmentToday: \.appointmentToday
        case .appointmentTomorrow: \.appointmentTomorrow
        case .thankYou: \.thankYou
        case .nothingWaiting: \.nothingWaiting
        case .nothingToRepeat: \.nothingToRepeat
        case .paymentsToday: \.paymentsToday
        case .noPaymentsToday: \.noPaymentsToday
        case .helpCall: \.helpCall
        case .quietFor: \.quietFor
        case .volume: \.volume
        }
    }

    static var english: PhraseTable {
        guard let table = builtIn["en"] else { preconditionFailure("the English phrase table is missing") }
        return table
    }
}

import Foundation
import HeraldCore
import Synchronization

/// The words Herald says a payment with, in every language it has a phrase table for (and the
/// config's `speech.phrases`), so a text that says them can be told from any other text.
///
/// Where payments must be signed (`api.require_signature: [payment]`), an unsigned text saying
/// "Payment received: one thousand dollars" would sound to the clerk exactly like a payment: it
/// must be signed as one. Each payment and summary template is cut at its placeholders and its
/// punctuation into clauses ("payment received", "payments received"); a clause is a sign of a
/// payment when it is long enough not to be an everyday word (two words and seven letters, or
/// two characters of a script written without spaces). Text and clauses are compared folded
/// (case, accents, width), with spaces, punctuation and invisible characters taken out, so
/// "PAYMENT-RECEIVED", "Paymentreceived" or a zero-width space between the letters match too.
///
/// This catches Herald's own sentences, not every paraphrase ("money came in"): docs/signing.md
/// ("A text that says a payment") says that `require_signature: [all]` is what closes that.
public struct PaymentWording: Sendable {
    /// Folded clauses, each with the template it comes from (to name it in the refusal).
    let clauses: [(folded: String, template: String)]

    /// The clauses of every built-in table's payment and summary phrases, and of `overrides`.
    public init(overrides: [String: [PhraseKey: String]] = [:]) {
        let tables = PhraseTable.builtIn.values.sorted { $0.language < $1.language }
        var phrases = tables.flatMap { [(PhraseKey.payment, $0.paymentReceived), (.summary, $0.paymentsSummary)] }
        for (_, overridden) in overrides.sorted(by: { $0.key < $1.key }) {
            phrases += [PhraseKey.payment, .summary].compactMap { key in overridden[key].map { (key, $0) } }
        }
        var seen = Set<String>()
        var clauses: [(String, String)] = []
        for (key, template) in phrases {
            for clause in Self.signs(of: template, key) where Self.isDistinctive(clause) {
                let folded = Self.folded(clause)
                if seen.insert(folded).inserted { clauses.append((folded, template)) }
            }
        }
        self.clauses = clauses
    }

    /// The clauses that say "a payment": every clause of the payment sentence; of the summary, only
    /// the one that names the payments beside `{count}` ("payments received", "笔付款"), not its
    /// "total" or "received" alone, which ordinary texts say too ("合计", "на сумму", "收到").
    static func signs(of template: String, _ key: PhraseKey) -> [String] {
        guard key == .summary, let count = template.range(of: "{count}") else { return clauses(of: template) }
        let before = clauses(of: String(template[..<count.lowerBound])).last
        let after = clauses(of: String(template[count.upperBound...])).first
        let named = [before, after].compactMap { $0 }.max { folded($0).count < folded($1).count }
        return named.map { [$0] } ?? []
    }
    /// The wording for `overrides`, made once while they stay the same (a reload that changes
    /// `speech.phrases` makes it again): folding every table's phrases costs more than a check.
    public static func cached(overrides: [String: [PhraseKey: String]]) -> PaymentWording {
        last.withLock { last in
            if let last, last.overrides == overrides { return last.wording }
            let wording = PaymentWording(overrides: overrides)
            last = (overrides, wording)
            return wording
        }
    }

    private static let last = Mutex<(overrides: [String: [PhraseKey: String]], wording: PaymentWording)?>(nil)

    /// The payment template whose words `text` says, or nil when it says none.
    public func template(saidBy text: String) -> String? {
        let folded = Self.folded(text)
        return clauses.first { folded.contains($0.folded) }?.template
    }

    /// `template`'s text between its placeholders and punctuation.
    static func clauses(of template: String) -> [String] {
        var text = template
        for placeholder in ["{amount}", "{count}"] { text = text.replacingOccurrences(of: placeholder, with: "\u{0}") }
        return text.split { $0 == "\u{0}" || ($0.isPunctuation && $0 != "'") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// Two words and seven letters, or two characters of Han or kana: not an everyday word.
    static func isDistinctive(_ clause: String) -> Bool {
        let letters = folded(clause)
        if clause.unicodeScalars.contains(where: isSpacelessScript) { return letters.count >= 2 }
        return clause.split(separator: " ").count >= 2 && letters.count >= 7
    }

    /// Lower case, without accents or width, keeping only letters, digits and the marks that are
    /// part of a letter in Indic scripts; everything else (spaces, punctuation, zero-width and
    /// other invisible characters) is taken out.
    static func folded(_ text: String) -> String {
        let plain = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
        var kept = String.UnicodeScalarView()
        for scalar in plain.unicodeScalars where !scalar.properties.isDefaultIgnorableCodePoint {
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .decimalNumber, .otherNumber, .letterNumber, .spacingMark, .nonspacingMark:
                kept.append(lookalikes[scalar] ?? scalar)
            default:
                continue
            }
        }
        return String(kept)
    }

    /// Letters drawn like Latin ones, as Latin: a Cyrillic "а" in "Pаyment" sounds the same to the
    /// clerk. Both sides are folded alike, so Russian phrases still match Russian texts. And the
    /// dotless ı, which "ALINDI" lowercases to "alindi", not "alındı".
    static let lookalikes: [Unicode.Scalar: Unicode.Scalar] = {
        let pairs: [(String, String)] = [("а", "a"), ("е", "e"), ("о", "o"), ("р", "p"), ("с", "c"), ("у", "y"), ("х", "x"),
                                         ("і", "i"), ("ј", "j"), ("ѕ", "s"), ("к", "k"), ("м", "m"), ("т", "t"), ("в", "b"),
                                         ("н", "h"), ("α", "a"), ("ο", "o"), ("ρ", "p"), ("ε", "e"), ("ι", "i"), ("κ", "k"),
                                         ("τ", "t"), ("ν", "v"), ("ı", "i")]
        return Dictionary(uniqueKeysWithValues: pairs.map { ($0.0.unicodeScalars.first!, $0.1.unicodeScalars.first!) })
    }()

    private static func isSpacelessScript(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF: true
        default: false
        }
    }
}

import ArgumentParser
import HeraldApp
import HeraldConfig
import HeraldCore
import RuntimePaths
import Speech

extension Herald {
    struct Say: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "say",
            abstract: "Speak a sentence with the safeguard (from the clip cache when it was said before).")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var announceOptions: AnnounceOptions

        @Argument(help: "What to say.")
        var text: String

        @Option(help: "Language tag: en, zh, es, de... (default: speech.language).")
        var lang: String?

        @Option(help: "An engine voice (en-us+f3, cmn) or an alias from speech.voices (nova, alloy...).")
        var voice: String?

        func validate() throws {
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw ValidationError("nothing to say: TEXT is empty")
            }
            // Its length is api.max_text_chars's business, checked as the daemon checks it (by the
            // daemon, or before a --local run). A control character is refused here, before a
            // daemon or this process is asked, in the words both use (the lean front hands such a
            // text to this command rather than to the daemon). One line, as the refusals of what
            // a text or an amount holds are (no usage: the command was typed right).
            if let control = ControlCharacter.first(in: text) { throw fail("\(control)") }
        }

        func run() async throws {
            try await announce(AnnouncementRequest(body: .text(text), language: lang, voice: voice),
                               options: options, announceOptions: announceOptions)
        }
    }

    struct Pay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pay",
            abstract: "Announce a payment received: from the voice pack when it has every word, else synthesized.",
            // As the parser would write it for one <amount> (it writes `[<amount> ...]` for `words`).
            usage: "herald pay [--config <FILE>] [--verbose] [--priority <priority>] [--chime <NAME>] [--json] [--local] <amount> [--currency <currency>] [--lang <lang>] [--print]")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var announceOptions: AnnounceOptions

        // Every word the options leave, -5 included: the parser reads -5 as an unknown option, and
        // a plain `@Argument` would answer "Missing expected argument" for `herald pay -5`.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The amount, exactly as a decimal: 25.30", valueName: "amount"))
        var words: [String] = []

        @Option(help: "ISO 4217 code: USD, EUR, INR, MXN... (default: speech.currency).")
        var currency: String?

        @Option(help: "Language: en, zh, es, hi, pt... (default: speech.language; herald doctor lists them).")
        var lang: String?

        @Flag(help: "Print the sentence it would say, and say nothing.")
        var print = false

        /// The words before `--` (options the parser did not know, or the amount) and after it (values).
        private var given: (before: ArraySlice<String>, after: ArraySlice<String>) {
            guard let terminator = words.firstIndex(of: "--") else { return (words[...], []) }
            return (words[..<terminator], words[(terminator + 1)...])
        }

        /// The amount as typed.
        var amount: String { (given.before.filter { !$0.hasPrefix("-") || $0 == "-" } + given.after).first ?? "" }

        func validate() throws {
            // -5, -0.50, -.5: a number, not an option; refused in one line, as the API refuses it.
            if let negative = words.first(where: { $0.count > 1 && $0.hasPrefix("-") && $0.dropFirst().allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") } }) {
                throw fail(AmountError.negative(negative))
            }
            if let option = given.before.first(where: { $0.hasPrefix("-") && $0 != "-" }) { throw ValidationError("Unknown option '\(option)'") }
            let values = Array(given.before) + given.after
            guard values.count <= 1 else { throw ValidationError("Unexpected argument '\(values[1])'") }
            guard !values.isEmpty else { throw ValidationError("Missing expected argument '<amount>'") }
        }

        func run() async throws {
            if print {
                let configuration = try await options.loadConfiguration()
                let parsed: Amount
                do { parsed = try Amount.payment(amount, currencyCode: currency, fallback: configuration.speech.currency) } catch { throw fail(error) }
                let request = AnnouncementRequest(body: .payment(parsed), priority: .high, source: .cli, language: lang)
                try await checkSpeechOptions(request, speech: configuration.speech)
                let sentence: AmountPhrase
                do { sentence = try configuration.speech.paymentSentence(parsed, language: lang ?? configuration.speech.language).phrase } catch { throw fail(error) }
                Swift.print(sentence.text)
                return
            }
            try await announce(options: options, announceOptions: announceOptions, amountForDaemon: currency == nil ? amount : nil) { configuration in
                let parsed = try Amount.payment(amount, currencyCode: currency, fallback: configuration.speech.currency)
                return AnnouncementRequest(body: .payment(parsed), priority: .high, source: .cli, language: lang)
            }
        }
    }
}

import Foundation

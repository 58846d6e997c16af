import ArgumentParser
import HeraldApp
import HeraldConfig
import HeraldCore

extension Herald {
    struct Say: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "say",
            abstract: "Speak a sentence with the safeguard (from the clip cache when it was said before).")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var announceOptions: AnnounceOptions

        @Argument(help: "What to say.")
        var text: String

        @Option(help: "Language: en or zh (default: speech.language).")
        var lang: String?

        @Option(help: "An engine voice (en-us+f3, cmn) or an alias from speech.voices (nova, alloy...).")
        var voice: String?

        func validate() throws {
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw ValidationError("nothing to say: TEXT is empty")
            }
            guard text.count <= 2000 else { throw ValidationError("TEXT is \(text.count) characters; say at most 2000 at once") }
        }

        func run() async throws {
            try await announce(AnnouncementRequest(body: .text(text), language: lang, voice: voice),
                               options: options, announceOptions: announceOptions)
        }
    }

    struct Pay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pay",
            abstract: "Announce a payment received: from the voice pack when it has every word, else synthesized.")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var announceOptions: AnnounceOptions

        @Argument(help: "The amount, exactly as a decimal: 25.30")
        var amount: String

        @Option(help: "ISO code: USD, EUR, GBP, JPY, CNY (default: speech.currency).")
        var currency: String?

        @Option(help: "Language: en or zh (default: speech.language).")
        var lang: String?

        func run() async throws {
            try await announce(options: options, announceOptions: announceOptions, amountForDaemon: currency == nil ? amount : nil) { configuration in
                let parsed = try Amount.parse(amount, currencyCode: currency, fallback: configuration.speech.currency)
                return AnnouncementRequest(body: .payment(parsed), priority: .high, source: .cli, language: lang)
            }
        }
    }
}

import Foundation

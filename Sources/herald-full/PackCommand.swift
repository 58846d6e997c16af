import ArgumentParser
import Foundation
import HeraldApp
import HeraldCore
import Speech

extension Herald {
    struct PackCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pack", abstract: "Voice packs: recorded clips amounts are composed from.",
            subcommands: [Build.self])

        struct Build: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "build",
                abstract: "Render a voice pack for LANG with the synthesizer (replace any clip with your own recording afterwards).")
            @OptionGroup var options: GlobalOptions

            @Argument(help: "A language amounts are said in: en, zh, es, hi, pt... (herald doctor lists them).")
            var language: String

            @Option(name: .customLong("currency"), help: ArgumentHelp("A currency its amounts are in, repeatable (default: speech.currency; en and zh know theirs).", valueName: "CODE"))
            var currencies: [String] = []

            @Option(help: ArgumentHelp("Where to write it (default: speech.packs/LANG).", valueName: "DIR"))
            var output: String?

            @Option(help: ArgumentHelp("The engine that renders it (default: speech.engine): espeak-ng, piper or command.",
                                       valueName: "ENGINE"))
            var engine: SpeechSettings.Engine?

            func run() async throws {
                let context = try await options.makeContext()
                var speech = context.configuration.speech
                speech.engine = engine ?? speech.engine
                let synthesizer = speech.makeSynthesizer(logger: context.logger)
                let renderer = SpeechRenderer(settings: speech, synthesizer: synthesizer, cache: nil, logger: context.logger)
                let grammar: any AmountGrammar
                do { grammar = try AmountGrammars.grammar(for: language) } catch { throw fail(error) }
                if let piper = synthesizer as? PiperSynthesizer {
                    // The voice the pack's words are rendered in (as its manifest names it).
                    let voice = renderer.request(text: "", language: grammar.language, voice: nil).voice
                    do { try piper.checkSpeaks(grammar.language, voice: voice) } catch { throw fail(error) }
                }
                let directory = output ?? (context.configuration.speech.packsDirectory as NSString)
                    .appendingPathComponent(SpeechNames.baseLanguage(grammar.language))
                var chosen: [Currency] = []
                for code in currencies {
                    guard let currency = Currency.named(code) else { throw fail(AmountError.unknownCurrency(code)) }
                    chosen.append(currency)
                }
                if chosen.isEmpty { chosen = [speech.currency] }
                let builder = VoicePackBuilder(renderer: renderer)
                let words: Int
                do { words = try builder.tokens(language: language, currencies: chosen).count } catch { throw fail(error) }
                let bar = ProgressBar(total: words + 1)
                do {
                    let pack = try await builder.build(language: language, currencies: chosen, into: directory) {
                        done, _ in bar.update(done, label: "")
                    }
                    bar.finish()
                    print("wrote \(pack.manifest.clips.count) clips and manifest.json to \(directory)")
                } catch {
                    bar.finish()
                    throw fail(error)
                }
            }
        }
    }
}

extension SpeechSettings.Engine: ExpressibleByArgument {}

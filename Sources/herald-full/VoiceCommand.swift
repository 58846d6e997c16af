import ArgumentParser
import Foundation
import Speech

extension Herald {
    struct VoiceCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "voice", abstract: "Piper voices: the natural voice of `speech.engine: piper`.",
            subcommands: [List.self])

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list",
                abstract: "List the installed Piper voices with their language, sample rate, size and licence.",
                discussion: "Install one with scripts/install-voice.sh; voices downloaded by hand go in the piper folder's voices/.")
            @OptionGroup var options: GlobalOptions

            @Flag(help: "The list as JSON.")
            var json = false

            func run() async throws {
                let piper = try await options.loadConfiguration().speech.piper.resolved()
                var voices = PiperVoiceModel.installed(in: piper.folder)
                // A model the config names outside the folder is listed too.
                if !piper.model.isEmpty, !voices.contains(where: { $0.modelPath == piper.model }),
                   let configured = try? PiperVoiceModel.read(modelPath: piper.model) {
                    voices.append(configured)
                }
                if voices.isEmpty {
                    print("no Piper voice in \(piper.folder); install one with scripts/install-voice.sh")
                    return
                }
                if json { return print(try jsonString(voices)) }
                for voice in voices {
                    let isDefault = voice.modelPath == piper.model
                    let size = String(format: "%.1f MB", Double(voice.bytes) / 1_000_000)
                    print("\(voice.name)\(isDefault ? " (default)" : "")  \(voice.languageCode)  \(voice.sampleRate) Hz  \(size)")
                    print("  model:   \(voice.modelPath)")
                    print("  licence: \(voice.licence)")
                }
            }
        }
    }
}

import Foundation
import HeraldCore
import RuntimePaths
import SoundFile

/// `herald pack build LANG`: renders a clip for every token the language's grammar and phrase
/// template can emit, and writes the manifest.
public struct VoicePackBuilder: Sendable {
    let renderer: SpeechRenderer

    public init(renderer: SpeechRenderer) { self.renderer = renderer }

    /// Every token a pack for `language` needs to say amounts in `currencies` from its clips:
    /// the grammar's words and the payment phrase's own.
    /// - Throws: `VoicePackError.numbersFromTheVoice` for a language whose numbers the voice reads
    ///   and no pack grammar composes (Japanese).
    public func tokens(language: String, currencies: [Currency]) throws -> [String] {
        let grammar = try AmountGrammars.grammar(for: language)
        if let voice = grammar as? VoiceNumberAmountGrammar, !voice.composesFromClips { throw VoicePackError.numbersFromTheVoice(language) }
        var seen = Set<String>()
        return (grammar.vocabulary(for: currencies) + renderer.settings.phrase(for: language).literalTokens)
            .filter { seen.insert($0).inserted }
    }

    /// Renders the pack for `language` into `directory`, with the words of amounts in `currencies`;
    /// `progress(done, total)` after each clip. A folder it makes is 0700 and the files it makes
    /// 0600, like all of Herald's (a pack for another account to read is made so with chmod).
    public func build(language: String, currencies: [Currency] = Currency.all, into directory: String,
                      progress: @Sendable (Int, Int) -> Void) async throws -> VoicePack {
        let grammar = try AmountGrammars.grammar(for: language)
        let tokens = try self.tokens(language: language, currencies: currencies)
        try PrivateFiles.makeFolder(directory)
        var clips: [String: String] = [:]
        var sampleRate = 22_050
        for (index, token) in tokens.enumerated() {
            let request = renderer.request(text: token, language: grammar.language, voice: nil)
            let clip = try await renderer.synthesizeWhole(request, requiring: renderer.synthesizer.clipSource)
            sampleRate = clip.sampleRate
            let file = VoicePack.fileName(for: token)
            try SoundFileEncoder.write(clip, to: (directory as NSString).appendingPathComponent(file), format: .flac)
            clips[token] = file
            progress(index + 1, tokens.count)
        }
        let manifest = VoicePack.Manifest(language: grammar.language, sampleRate: sampleRate,
                                          gapMs: grammar.language == "zh" ? 20 : 40, clips: clips,
                                          engine: renderer.synthesizer.engineName(voice: renderer.request(text: "", language: grammar.language, voice: nil).voice))
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try PrivateFiles.write(Array(encoder.encode(manifest)), to: (directory as NSString).appendingPathComponent("manifest.json"))
        return try VoicePack(directory: directory)
    }
}

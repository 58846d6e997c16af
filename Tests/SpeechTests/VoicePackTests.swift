import Foundation
import HeraldCore
import SoundFile
import Speech
import Testing

@Suite struct VoicePackTests {
    @Test(arguments: ["en", "zh"])
    func theShippedPackHasEveryTokenItsGrammarCanSay(language: String) throws {
        let pack = try #require(try VoicePack.find(language: language, in: SpeechWorkspace.sounds + "/voices"))
        let grammar = try AmountGrammars.grammar(for: language)
        let tokens = grammar.vocabulary + PhraseTemplate.standard(language: language).literalTokens
        #expect(pack.missing(tokens).isEmpty)
    }

    @Test func compositionIsTheClipsWithEvenGaps() throws {
        let pack = try #require(try VoicePack.find(language: "en", in: SpeechWorkspace.sounds + "/voices"))
        let phrase = PhraseTemplate.standard(language: "en")
            .fill(EnglishAmountGrammar().words(for: try Amount.parse("25.30", currency: .usd)))
        let composed = try pack.compose(phrase.tokens)
        let clipsMilliseconds = try phrase.tokens.map { token in
            SilenceTrimmer.trimmed(try SoundFileDecoder.decode(path: pack.directory + "/" + pack.manifest.clips[token]!))
                .durationMilliseconds
        }.reduce(0, +)
        let expected = clipsMilliseconds + pack.manifest.gapMs * (phrase.tokens.count - 1)
        #expect(abs(composed.durationMilliseconds - expected) <= phrase.tokens.count)
    }

    @Test func aPaymentUsesThePackWhenItHasEveryWord() async throws {
        let workspace = SpeechWorkspace()
        let rendered = try await workspace.renderer().render(payment: Amount(minorUnits: 100105, currency: .usd), language: "en")
        #expect(rendered.clipSource == .pack)
        #expect(rendered.spokenText == "Payment received: one thousand one dollars and five cents")
    }

    @Test func aPackMissingAWordFallsBackToSynthesis() async throws {
        let workspace = SpeechWorkspace()
        // A copy of the English pack without "thousand".
        let copy = workspace.folder + "/voices/en"
        try FileManager.default.createDirectory(atPath: workspace.folder + "/voices", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: SpeechWorkspace.sounds + "/voices/en", toPath: copy)
        let manifestPath = copy + "/manifest.json"
        var manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifestPath))) as! [String: Any]
        var clips = manifest["clips"] as! [String: String]
        clips["thousand"] = nil
        manifest["clips"] = clips
        try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: manifestPath))
        var settings = workspace.renderer().settings
        settings.packsDirectory = workspace.folder + "/voices"
        let renderer = SpeechRenderer(settings: settings, synthesizer: EspeakSynthesizer.shared, cache: nil,
                                      logger: .init(label: "test"))
        #expect(try await renderer.render(payment: Amount(minorUnits: 100000, currency: .usd), language: "en").clipSource == .synth)
        #expect(try await renderer.render(payment: Amount(minorUnits: 2500, currency: .usd), language: "en").clipSource == .pack)
    }

    @Test func aPacksManifestIsReadOnceUntilItsFileChanges() throws {
        let folder = NSTemporaryDirectory() + "herald-manifests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/en", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/en/manifest.json"
        func write(gapMs: Int) throws {
            let json = #"{"language": "en", "sample_rate": 22050, "gap_ms": \#(gapMs), "clips": {"one": "one.flac"}}"#
            try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        }
        let manifests = VoicePackManifests()
        try write(gapMs: 40)
        #expect(try VoicePack.find(language: "en", in: folder, manifests: manifests)?.manifest.gapMs == 40)
        #expect(try VoicePack.find(language: "en-GB", in: folder, manifests: manifests)?.manifest.gapMs == 40)
        #expect(manifests.reads == 1, "the second payment's lookup read the manifest again")
        // `herald pack build` writes it again: a new stamp, read once more.
        try write(gapMs: 125)
        #expect(try VoicePack.find(language: "en", in: folder, manifests: manifests)?.manifest.gapMs == 125)
        #expect(manifests.reads == 2)
        try FileManager.default.removeItem(atPath: path)
        #expect(try VoicePack.find(language: "en", in: folder, manifests: manifests) == nil)
    }

    @Test func fileNamesAreASCII() {
        #expect(VoicePack.fileName(for: "payment received") == "payment-received.flac")
        #expect(VoicePack.fileName(for: "两") == "u4e24.flac")
    }

    @Test func clipsOfOtherFormatsAreConverted() {
        let stereo = Clip(sampleRate: 44_100, channelCount: 2, samples: [Float](repeating: 0.5, count: 44_100 * 2))
        let converted = stereo.converted(to: AudioFormat(sampleRate: 22_050, channelCount: 1))
        #expect(converted.frameCount == 22_050)
        #expect(converted.samples.allSatisfy { abs($0 - 0.5) < 0.0001 })
    }
}

import Foundation
import HeraldCore
import Speech
import Testing

/// The real espeak-ng, in-process, and through the command engine.
@Suite(.serialized) struct SynthesizerTests {
    init() { _ = ignoringSIGPIPE }

    let request = SpeechRequest(text: "Payment received: twenty-five dollars and thirty cents.", language: "en",
                                voice: "en-us", rate: 175, pitch: 50)

    @Test func espeakStreamsChunksAndTheRendererTrimsItsLeadingSilence() async throws {
        let speech = try await EspeakSynthesizer.shared.synthesize(request)
        let (format, chunks) = (speech.format, speech.chunks)
        #expect(format == AudioFormat(sampleRate: 22_050, channelCount: 1))
        var sizes: [Int] = []
        var samples: [Float] = []
        for try await chunk in chunks {
            sizes.append(chunk.count)
            samples += chunk
        }
        #expect(sizes.count > 10, "many chunks, not one clip at the end: \(sizes.count)")
        let raw = Clip(sampleRate: format.sampleRate, channelCount: 1, samples: samples)
        let leadingSilence = (samples.firstIndex { abs($0) > SilenceTrimmer.threshold } ?? 0) * 1000 / format.sampleRate
        #expect(leadingSilence >= 20, "espeak-ng starts with silence of its own (\(leadingSilence) ms)")
        let trimmed = SilenceTrimmer.trimmed(raw)
        #expect(raw.durationMilliseconds - trimmed.durationMilliseconds >= leadingSilence)
        #expect(trimmed.durationMilliseconds > 2000)
    }

    @Test func anUnknownVoiceIsNamed() async {
        var bad = request
        bad.voice = "zz-nonexistent"
        await #expect(throws: SpeechError.unknownVoice("zz-nonexistent")) { try await EspeakSynthesizer.shared.synthesize(bad) }
    }

    @Test func chineseIsSynthesized() async throws {
        let workspace = SpeechWorkspace()
        let clip = try await workspace.renderer().synthesizeWhole(
            SpeechRequest(text: "收款二十五元三角", language: "zh", voice: "cmn", rate: 175, pitch: 50))
        #expect(clip.durationMilliseconds > 1000)
        #expect(clip.samples.first.map { abs($0) > SilenceTrimmer.threshold } == true, "trimmed")
    }

    @Test func theCommandEngineRunsAProgramThatWritesWAV() async throws {
        let engine = CommandSynthesizer(command: "espeak-ng --stdout -v {voice} -s {rate}", timeout: .seconds(10))
        let clip = try await engine.render(request)
        #expect(clip.sampleRate == 22_050)
        #expect(clip.durationMilliseconds > 2000)
    }

    @Test func theCommandEngineNamesAMissingProgram() async {
        let engine = CommandSynthesizer(command: "no-such-tts --wav", timeout: .seconds(5))
        await #expect {
            _ = try await engine.render(request)
        } throws: { error in
            "\(error)".contains("'no-such-tts' failed (not found on PATH)")
        }
    }

    @Test func theCommandEngineNamesAProgramThatWritesNoAudio() async {
        let engine = CommandSynthesizer(command: "echo -- {text}", timeout: .seconds(5))
        await #expect {
            _ = try await engine.render(request)
        } throws: { error in
            "\(error)".contains("did not write audio on standard output")
        }
    }

    @Test func theCommandEngineTimesOut() async {
        let engine = CommandSynthesizer(command: "sleep 5", timeout: .milliseconds(200))
        await #expect {
            _ = try await engine.render(request)
        } throws: { error in
            "\(error)".contains("did not finish within")
        }
    }

    @Test func aliasesMapToEngineVoices() {
        let settings = SpeechSettings()
        #expect(settings.resolveVoice("nova", language: "en") == "en-us+f3")
        #expect(settings.resolveVoice("en-gb", language: "en") == "en-gb")
        #expect(settings.resolveVoice(nil, language: "zh") == "cmn")
    }
}

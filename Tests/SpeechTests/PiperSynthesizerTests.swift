import Foundation
import HeraldCore
import Logging
@testable import Speech
import Testing

/// The Piper supervisor with stand-in programs (real processes that load, hang or are missing):
/// what espeak-ng takes over, how fast, and what the speech says it was. Piper itself is heard
/// in IntegrationTests/PiperVoiceTests.
@Suite(.serialized) struct PiperSynthesizerTests {
    init() { _ = ignoringSIGPIPE }

    let workspace = SpeechWorkspace()
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// A model Herald can read (its JSON) for a stand-in program that never opens it.
    func standInModel() throws -> String {
        try FileManager.default.createDirectory(atPath: workspace.folder, withIntermediateDirectories: true)
        let model = workspace.folder + "/en_US-standin-medium.onnx"
        FileManager.default.createFile(atPath: model, contents: Data("not a network".utf8))
        try #"{"audio": {"sample_rate": 22050}, "language": {"code": "en_US", "family": "en"}}"#
            .write(toFile: model + ".json", atomically: true, encoding: .utf8)
        return model
    }

    /// A program that says it is ready, then never answers.
    func hangingProgram() throws -> String {
        let path = workspace.folder + "/hanging-piper"
        try """
            #!/bin/sh
            printf 'R\\026\\000\\000\\000{"sample_rate": 22050}'
            exec sleep 600
            """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    func settings(python: String) throws -> PiperSettings {
        var settings = PiperSettings()
        settings.folder = workspace.folder
        settings.python = python
        settings.model = try standInModel()
        settings.timeoutMilliseconds = 500
        return settings
    }

    /// How long espeak-ng itself takes to its first chunk of `text` now.
    static func firstChunk(of text: String) async throws -> Duration {
        let started = ContinuousClock.now
        let speech = try await EspeakSynthesizer.shared.synthesize(SpeechRequest(text: text, language: "en", voice: "en-us", rate: 175, pitch: 50))
        var first: Duration?
        for try await _ in speech.chunks where first == nil { first = ContinuousClock.now - started }
        return first ?? .zero
    }

    func say(_ synthesizer: PiperSynthesizer, _ text: String) async throws -> (samples: Int, spokenBy: ClipSource, first: Duration) {
        let started = ContinuousClock.now
        let speech = try await synthesizer.synthesize(SpeechRequest(text: text, language: "en", voice: "", rate: 175, pitch: 50))
        var samples = 0
        var first: Duration?
        for try await chunk in speech.chunks {
            if first == nil { first = ContinuousClock.now - started }
            samples += chunk.count
        }
        return (samples, speech.spokenBy(), first ?? .zero)
    }

    @Test func aHungPiperIsKilledAfterItsTimeoutAndEspeakSaysItThenAtOnceWhileItRestarts() async throws {
        let synthesizer = PiperSynthesizer(settings: try settings(python: try hangingProgram()), logger: logger)
        defer { synthesizer.stop() }
        await synthesizer.prepare()
        let hung = try #require(synthesizer.residentPID, "the stand-in said it was ready")
        let first = try await say(synthesizer, "Payment received. Thank you.")
        #expect(first.spokenBy == .synth)
        #expect(first.samples > 22_050, "espeak-ng said both sentences: \(first.samples) samples")
        #expect(first.first >= .milliseconds(500) && first.first < .seconds(3), "killed after its 500 ms: \(first.first)")
        #expect(kill(hung, 0) != 0, "the hung process is gone")
        // Restarting (a 1 s backoff): nobody waits for it. espeak-ng is one engine for the whole
        // process, and other suites (a voice pack being built) may hold it now: its own time to a
        // first chunk, measured just before, is the yardstick.
        let espeakAlone = try await Self.firstChunk(of: "Next customer please.")
        let second = try await say(synthesizer, "Next customer please.")
        #expect(second.spokenBy == .synth)
        // Seen at 1.1 to 1.5 s in CI runs (against 0.06 s for espeak-ng alone) while every target
        // ran in one process, where the integration tests' blocking waits (usleep, waitUntilExit)
        // held both threads of the 2-core concurrency pool; scripts/test.sh now runs those in a
        // process of their own. Waiting for Piper's restart (1 s backoff, then its load) would
        // take well over the bound.
        #expect(second.first < espeakAlone + .milliseconds(900),
                "espeak-ng at once while Piper restarts: \(second.first) (espeak-ng alone: \(espeakAlone))")
        // Started again after its 1 s backoff: polled, as a loaded machine may take longer to start it.
        let deadline = ContinuousClock.now + .seconds(10)
        while synthesizer.residentPID == nil || synthesizer.residentPID == hung, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let restarted = try #require(synthesizer.residentPID, "started again after the backoff")
        #expect(restarted != hung)
    }

    @Test func aMissingProgramLeavesEspeakToSpeak() async throws {
        let synthesizer = PiperSynthesizer(settings: try settings(python: workspace.folder + "/no-such-python"), logger: logger)
        defer { synthesizer.stop() }
        let said = try await say(synthesizer, "The shop closes at six.")
        #expect(said.spokenBy == .synth && said.samples > 11_025)
    }

    @Test func textInAnotherLanguageThanTheModelsGoesToEspeak() async throws {
        let synthesizer = PiperSynthesizer(settings: try settings(python: try hangingProgram()), logger: logger)
        defer { synthesizer.stop() }
        let speech = try await synthesizer.synthesize(SpeechRequest(text: "收款二十五元", language: "zh", voice: "", rate: 175, pitch: 50))
        var samples = 0
        for try await chunk in speech.chunks { samples += chunk.count }
        #expect(speech.spokenBy() == .synth && samples > 11_025)
        #expect(synthesizer.residentPID == nil, "Mandarin never starts Piper")
    }

    @Test func anUnknownVoiceIsNamed() async throws {
        let synthesizer = PiperSynthesizer(settings: try settings(python: try hangingProgram()), logger: logger)
        await #expect(throws: SpeechError.unknownVoice("en_GB-nobody-low")) {
            _ = try await synthesizer.synthesize(SpeechRequest(text: "Hello.", language: "en", voice: "en_GB-nobody-low", rate: 175, pitch: 50))
        }
    }

    @Test(arguments: [
        ("Payment received. Thank you!", ["Payment received.", "Thank you!"]),
        ("Dr. Smith is in", ["Dr.", "Smith is in"]),
        ("One\nTwo", ["One", "Two"]),
        ("No end", ["No end"]),
        ("  ", []),
    ])
    func sentencesAreCutAfterTheirEndMarks(text: String, expected: [String]) {
        #expect(PiperSynthesizer.sentences(in: text) == expected)
    }

    @Test(arguments: [
        ("Payment received, 1,000.50 dollars. Thank you!", ["Payment received,", "1,000.50 dollars.", "Thank you!"]),
        ("Time to take your medication; one tablet: with water", ["Time to take your medication;", "one tablet:", "with water"]),
        ("收款成功，二十五元。谢谢", ["收款成功，", "二十五元。", "谢谢"]),
        ("Payment received, 收款成功，25 dollars", ["Payment received,", "收款成功，", "25 dollars"]),
        // A long first clause is cut short, before a word a speaker breathes before, else after three.
        ("no punctuation at all in this one", ["no punctuation", "at all in this one"]),
        ("The delivery for order 18 for Dana arrives in 4 minutes.", ["The delivery", "for order 18 for Dana arrives in 4 minutes."]),
        ("Quickly now everybody move outside please, thank you", ["Quickly now everybody", "move outside please,", "thank you"]),
        ("Your order number eighteen", ["Your order number eighteen"]),
        // Every clause end is a clause of its own, said.
        ("Is the order ready? Yes! Wait… now; ok: go", ["Is the order ready?", "Yes!", "Wait…", "now;", "ok:", "go"]),
        ("Hello , , world ...", ["Hello ,,", "world ..."]),
        ("... hello", ["... hello"]),
        ("?!", ["?!"]),
    ])
    func clausesAreCutAfterTheirPunctuationAndNoneSaysNothing(text: String, expected: [String]) {
        #expect(PiperSynthesizer.clauses(in: text) == expected)
    }

    /// A stand-in that says the first clause (2,000 silent samples) and dies: when asked the
    /// next, or (`midClause`) before it has said the first one's end.
    func diesAfterOneClauseProgram(midClause: Bool) throws -> String {
        let path = workspace.folder + "/dies-after-one-clause-\(midClause)"
        try """
            #!/bin/sh
            printf 'R\\026\\000\\000\\000{"sample_rate": 22050}'
            read line
            printf 'A\\100\\037\\000\\000'
            head -c 8000 /dev/zero
            \(midClause ? "exit 1" : "printf 'E\\000\\000\\000\\000'")
            read line
            exit 1
            """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// After a whole clause, or part-way through one (the rest of that clause is lost, never
    /// said twice): espeak-ng says the clauses after it.
    @Test(arguments: [false, true])
    func whenPiperDiesAfterAClauseEspeakSaysTheRestAndNoClauseTwice(midClause: Bool) async throws {
        let synthesizer = PiperSynthesizer(settings: try settings(python: try diesAfterOneClauseProgram(midClause: midClause)), logger: logger)
        defer { synthesizer.stop() }
        await synthesizer.prepare()
        let said = try await say(synthesizer, "Payment received, twenty five dollars, thank you.")
        // espeak-ng alone on what was left, at Piper's rate: the expected length of the rest.
        let rest = try await EspeakSynthesizer.shared.synthesize(
            SpeechRequest(text: "twenty five dollars, thank you.", language: "en",
                          voice: EspeakSynthesizer.defaultVoice(language: "en"), rate: 175, pitch: 50))
        var restSamples = 0
        for try await chunk in rest.chunks {
            restSamples += PiperSynthesizer.converted(chunk, from: rest.format, to: AudioFormat(sampleRate: 22050, channelCount: 1)).count
        }
        #expect(said.spokenBy == .synth)
        #expect(restSamples > 0)
        // espeak-ng's length for one text varies a little from one synthesis to the next (26 and
        // 264 samples seen); a clause said twice would add 2,000 samples or more.
        print("figures: Piper's clause 2000 samples + espeak-ng's rest \(restSamples) = \(2_000 + restSamples); said \(said.samples)")
        #expect(abs(said.samples - (2_000 + restSamples)) < 1_000,
                "Piper's first clause (2000) and espeak-ng's rest (\(restSamples)), none twice: \(said.samples)")
    }

    /// A stand-in that answers every request with 2,000 silent samples and logs each request.
    func answeringProgram() throws -> (program: String, requests: String) {
        let path = workspace.folder + "/answering-piper"
        let requests = workspace.folder + "/answering-piper.requests"
        try """
            #!/bin/sh
            printf 'R\\026\\000\\000\\000{"sample_rate": 22050}'
            while read line; do
              printf '%s\\n' "$line" >> \(requests)
              printf 'A\\100\\037\\000\\000'
              head -c 8000 /dev/zero
              printf 'E\\000\\000\\000\\000'
            done
            """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return (path, requests)
    }

    @Test func aMandarinClauseInAnEnglishSentenceIsEspeakNgsMandarinAndTheRestPipers() async throws {
        let (program, requests) = try answeringProgram()
        let synthesizer = PiperSynthesizer(settings: try settings(python: program), logger: logger)
        defer { synthesizer.stop() }
        await synthesizer.prepare()
        let said = try await say(synthesizer, "Payment received, 收款成功，thank you.")
        let asked = try String(contentsOfFile: requests, encoding: .utf8).split(separator: "\n")
        #expect(asked.count == 2 && asked.allSatisfy { !$0.contains("收") }, "Piper got the English clauses only: \(asked)")
        let mandarin = try await EspeakSynthesizer.shared.synthesize(
            SpeechRequest(text: "收款成功，", language: "zh", voice: EspeakSynthesizer.defaultVoice(language: "zh"), rate: 175, pitch: 50))
        var mandarinSamples = 0
        for try await chunk in mandarin.chunks {
            mandarinSamples += PiperSynthesizer.converted(chunk, from: mandarin.format, to: AudioFormat(sampleRate: 22050, channelCount: 1)).count
        }
        #expect(mandarinSamples > 2_000)
        #expect(abs(said.samples - (4_000 + mandarinSamples)) < 1_000, "two Piper clauses and espeak-ng's Mandarin: \(said.samples)")
        #expect(said.spokenBy == .synth, "espeak-ng said part of it: not cached as Piper's")
    }

    @Test func pushNamesAreTheDefaultVoiceUnlessMapped() {
        var settings = SpeechSettings()
        settings.engine = .piper
        settings.piper.voices = ["onyx": "en_US-ryan-high"]
        #expect(settings.resolveVoice("nova", language: "en") == "")
        #expect(settings.resolveVoice("onyx", language: "en") == "en_US-ryan-high")
        #expect(settings.resolveVoice(nil, language: "en") == "")
        #expect(settings.resolveVoice("en_US-joe-medium", language: "en") == "en_US-joe-medium")
    }

    /// A stand-in voice `name` (language `code`) in `folder`.
    func standInVoice(_ name: String, code: String, in folder: String) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let model = "\(folder)/\(name).onnx"
        FileManager.default.createFile(atPath: model, contents: Data("not a network".utf8))
        try #"{"audio": {"sample_rate": 22050}, "language": {"code": "\#(code)"}}"#
            .write(toFile: model + ".json", atomically: true, encoding: .utf8)
        return model
    }

    /// Issue 31: a language the default voice does not speak takes an installed voice of that
    /// language (its region first), found in the Piper folder's voices/ and beside the model.
    @Test func aLanguageTheDefaultVoiceDoesNotSpeakTakesAnInstalledVoiceOfIt() throws {
        var speech = SpeechSettings()
        speech.engine = .piper
        speech.piper = try settings(python: "/bin/false")
        let voices = workspace.folder + "/voices"
        #expect(speech.resolveVoice(nil, language: "es-MX") == "", "none installed yet: the default (espeak-ng says it)")
        let spain = try standInVoice("es_ES-ana-medium", code: "es_ES", in: voices)
        #expect(speech.resolveVoice(nil, language: "es-MX") == spain, "a new voice is found without a restart")
        let mexico = try standInVoice("es_MX-claude-high", code: "es_MX", in: voices)
        #expect(speech.resolveVoice(nil, language: "es-MX") == mexico, "the tag's region first")
        #expect(speech.resolveVoice(nil, language: "es") == spain, "no region: the first by name")
        #expect(speech.resolveVoice("nova", language: "es") == spain, "a push name is the language's voice too")
        #expect(speech.resolveVoice(nil, language: "en-GB") == "", "the default speaks English")
        let hindi = try standInVoice("hi_IN-pratham-medium", code: "hi_IN", in: workspace.folder)
        #expect(speech.resolveVoice(nil, language: "hi") == hindi, "a voice beside the default model")
        #expect(speech.resolveVoice("en_US-joe-medium", language: "es") == "en_US-joe-medium", "a voice asked for by name stays")
        // Two voices may be links to one network: each is still its own voice.
        let brazil = voices + "/pt_BR-linked-medium.onnx"
        try FileManager.default.createSymbolicLink(atPath: brazil, withDestinationPath: spain)
        try #"{"audio": {"sample_rate": 22050}, "language": {"code": "pt_BR"}}"#.write(toFile: brazil + ".json", atomically: true, encoding: .utf8)
        #expect(speech.resolveVoice(nil, language: "pt-BR") == brazil)
        let synthesizer = PiperSynthesizer(settings: speech.piper, logger: logger)
        #expect(try synthesizer.model(named: brazil).languageCode == "pt_BR", "the link, not the file it points to")
        #expect(throws: Never.self) { try synthesizer.checkSpeaks("es", voice: speech.resolveVoice(nil, language: "es")) }
        #expect(throws: SpeechError.self) { try synthesizer.checkSpeaks("vi", voice: speech.resolveVoice(nil, language: "vi")) }
        #expect(synthesizer.engineName(voice: spain) == "piper:" + PiperVoiceModel.hash(of: spain), "a language's voice is cached under its own model")
        #expect(synthesizer.engineName(voice: "") == synthesizer.engineName)
    }
}

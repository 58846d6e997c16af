import Foundation
import HeraldCore
import Speech
import Testing

/// espeak-ng must be on PATH for these; under CI a missing one fails them rather than skipping.
enum EspeakProgram {
    static var shouldRun: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true" || isInstalled
    }

    static var isInstalled: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/espeak-ng") }
    }
}

/// Announcement text, voices and languages never become options of the command engine's program.
@Suite(.serialized, .enabled(if: EspeakProgram.shouldRun, "needs the espeak-ng program"))
struct CommandEngineSafetyTests {
    init() { _ = ignoringSIGPIPE }

    /// A path `-w` would write to, unique to this run, and not there yet.
    func trapPath() -> String {
        NSTemporaryDirectory() + "herald-trap-\(UUID().uuidString).wav"
    }

    /// True when anything was written at `trap` or at a name starting with it: an argument
    /// `-w/tmp/x.wav hello` makes espeak-ng write `/tmp/x.wav hello`.
    func written(_ trap: String) -> Bool {
        let name = (trap as NSString).lastPathComponent
        let folder = (trap as NSString).deletingLastPathComponent
        let found = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.filter { $0.hasPrefix(name) } ?? []
        for file in found { try? FileManager.default.removeItem(atPath: "\(folder)/\(file)") }
        return !found.isEmpty
    }

    func request(_ text: String, voice: String = "en-us", language: String = "en") -> SpeechRequest {
        SpeechRequest(text: text, language: language, voice: voice, rate: 175, pitch: 50)
    }

    @Test func textThatLooksLikeAnOptionIsSpokenFromStandardInput() async throws {
        #expect(EspeakProgram.isInstalled, "espeak-ng is not on PATH")
        let trap = trapPath()
        let engine = CommandSynthesizer(command: "espeak-ng --stdout -v {voice}", timeout: .seconds(10))
        let clip = try await engine.render(request("-w\(trap) hello"))
        #expect(clip.durationMilliseconds > 500, "the text was spoken: \(clip.durationMilliseconds) ms")
        #expect(!written(trap), "-w was read as an option")
    }

    @Test func textAfterADoubleDashIsAnArgumentNotAnOption() async throws {
        #expect(EspeakProgram.isInstalled, "espeak-ng is not on PATH")
        let trap = trapPath()
        let engine = CommandSynthesizer(command: "espeak-ng --stdout -v {voice} -- {text}", timeout: .seconds(10))
        #expect(try engine.arguments(for: request("-w\(trap) hello")).last == "-w\(trap) hello")
        let clip = try await engine.render(request("-w\(trap) hello"))
        #expect(clip.durationMilliseconds > 500, "the text was spoken: \(clip.durationMilliseconds) ms")
        #expect(!written(trap), "-w was read as an option")
    }

    @Test(arguments: ["espeak-ng --stdout {text}", "espeak-ng --stdout --text={text} --", "{text} -- x"])
    func aTemplateThatPutsTextWhereOptionsAreIsRefused(template: String) async {
        #expect(CommandSynthesizer.templateProblem(template)?.contains("after a '--'") == true
                || CommandSynthesizer.templateProblem(template)?.contains("program's name") == true)
        let trap = trapPath()
        let engine = CommandSynthesizer(command: template, timeout: .seconds(10))
        await #expect(throws: SpeechError.self) { _ = try await engine.render(request("-w\(trap) hello")) }
        #expect(!written(trap))
    }

    @Test func usableTemplatesPass() {
        #expect(CommandSynthesizer.templateProblem("espeak-ng --stdout -v {voice} -s {rate}") == nil)
        #expect(CommandSynthesizer.templateProblem("espeak-ng --stdout -- {text}") == nil)
        #expect(CommandSynthesizer.templateProblem("piper --model {voice}.onnx --output_file -") == nil)
        #expect(CommandSynthesizer.templateProblem("-x espeak-ng") != nil)
    }

    @Test(arguments: ["-w/tmp/x.wav", "--stdout", "../../../etc/passwd", "en us", "", String(repeating: "a", count: 65)])
    func aVoiceThatIsNotAPlainNameNeverReachesTheProgram(voice: String) async {
        let trap = trapPath()
        let bad = voice.replacingOccurrences(of: "/tmp/x.wav", with: trap)
        let engine = CommandSynthesizer(command: "espeak-ng --stdout -v {voice}", timeout: .seconds(10))
        #expect(throws: SpeechError.unknownVoice(bad)) { _ = try engine.arguments(for: request("hello", voice: bad)) }
        await #expect(throws: SpeechError.unknownVoice(bad)) { _ = try await engine.render(request("hello", voice: bad)) }
        #expect(!written(trap))
    }

    @Test func aLanguageThatIsNotATagNeverReachesTheProgram() throws {
        let engine = CommandSynthesizer(command: "espeak-ng --stdout -v {lang}", timeout: .seconds(10))
        #expect(throws: SpeechError.unknownLanguage("-wx")) { _ = try engine.arguments(for: request("hello", language: "-wx")) }
        #expect(try engine.arguments(for: request("hello", language: "en-gb")) == ["espeak-ng", "--stdout", "-v", "en-gb"])
    }

    @Test func placeholdersAreFilledInOnePass() throws {
        let engine = CommandSynthesizer(command: "tts -v {voice} -l {lang} -- {text}", timeout: .seconds(1))
        let words = try engine.arguments(for: request("say {voice} and {lang}", voice: "en-us+f3", language: "en"))
        #expect(words == ["tts", "-v", "en-us+f3", "-l", "en", "--", "say {voice} and {lang}"])
    }
}

import Foundation
import HeraldCore
import SoundFile

/// Any program that reads text and writes WAV on standard output: piper, festival's text2wave,
/// `espeak-ng --stdout`. Not streaming: the whole clip is read, then played.
///
/// `command` is split on spaces; `{voice}`, `{rate}`, `{pitch}` and `{lang}` are replaced in each
/// argument. The text goes to standard input, never into an option: text that reads
/// `-w/etc/x.wav hello` would otherwise be an option of the program. A program that only takes
/// its text as an argument gets it through `{text}` placed after a literal `--` argument
/// (`espeak-ng --stdout -- {text}`), where no program reads options. No shell is involved: the
/// program is found on PATH by Herald and started directly, and a template whose program is a
/// shell or interpreter that would run the text is refused (`CommandProgram`).
public struct CommandSynthesizer: Synthesizer {
    public let engineName = "command"
    public let command: String
    public let timeout: Duration
    /// PATH's folders, where a bare program name is looked up.
    public let searchPath: String?

    public init(command: String, timeout: Duration,
                searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) {
        self.command = command
        self.timeout = timeout
        self.searchPath = searchPath
    }

    /// What is wrong with a command template's shape, for `config check`; nil when it is usable.
    /// Only the words are looked at; `programProblem` also looks the program up.
    public static func templateProblem(_ command: String) -> String? {
        let words = command.split(separator: " ").map(String.init)
        guard let first = words.first else { return "is empty; give a program that writes WAV on standard output" }
        if first.hasPrefix("-") { return "'\(first)' is an option where the program's name goes; start with the program" }
        if first.contains("{") {
            return "'\(first)' is a placeholder where the program's name goes; start with the program, e.g. \"piper --output_file -\""
        }
        // By the name as written; `programProblem` checks the name the links resolve to as well.
        if let problem = CommandProgram(name: first).safetyProblem(arguments: Array(words.dropFirst())) { return problem }
        let separator = words.firstIndex(of: "--")
        for (index, word) in words.enumerated() where word.contains("{text}") {
            guard let separator, index > separator else {
                return "'\(word)' puts the announcement text where the program reads options (text such as '-w/tmp/x.wav' would be one); leave {text} out to send the text on standard input, or put it after a '--' argument: \"espeak-ng --stdout -- {text}\""
            }
        }
        return nil
    }

    /// The template's problem including its program: a path must be an executable file, a bare
    /// name must be found in `searchPath`, and the program as its links resolve must not be a shell
    /// or interpreter handed the text. Nil when the template is usable as it is.
    public static func programProblem(_ command: String, searchPath: String?) -> String? {
        if let problem = templateProblem(command) { return problem }
        let words = command.split(separator: " ").map(String.init)
        let program = CommandProgram.locate(words[0], searchPath: searchPath)
        guard program.path != nil else { return missing(program.name, searchPath: searchPath) }
        return program.safetyProblem(arguments: Array(words.dropFirst()))
    }

    static func missing(_ name: String, searchPath: String?) -> String {
        if name.hasPrefix("/") {
            return "no program \(name) (no executable file there); install it, or correct the path"
        }
        if name.contains("/") {
            return "'\(name)' is a relative path; give the program's absolute path, or a bare name found on PATH"
        }
        return "no program '\(name)' on PATH (\(searchPath ?? "/usr/local/bin:/usr/bin:/bin")); install it, or give its absolute path"
    }

    public func synthesize(_ request: SpeechRequest) async throws -> SynthesizedSpeech {
        let clip = try await render(request)
        let (stream, continuation) = AsyncThrowingStream<[Float], any Error>.makeStream()
        continuation.yield(clip.samples)
        continuation.finish()
        return SynthesizedSpeech(format: AudioFormat(sampleRate: clip.sampleRate, channelCount: clip.channelCount), chunks: stream)
    }

    /// The program's arguments for `request`: each placeholder replaced in one pass, so a value
    /// never has another placeholder filled inside it.
    /// - Throws: `SpeechError` when the template is unsafe or the voice or language is not a
    ///   plain name (a voice of `--output=/etc/x` must not become an option).
    public func arguments(for request: SpeechRequest) throws -> [String] {
        if let problem = Self.templateProblem(command) { throw SpeechError.commandFailed("speech.command \(problem)") }
        guard SpeechNames.isVoiceName(request.voice) else { throw SpeechError.unknownVoice(request.voice) }
        guard SpeechNames.isLanguageTag(request.language) else { throw SpeechError.unknownLanguage(request.language) }
        let values = ["voice": request.voice, "rate": "\(request.rate)", "pitch": "\(request.pitch)",
                      "lang": request.language, "text": request.text]
        return command.split(separator: " ").map { word in
            String(word).replacing(/\{(voice|rate|pitch|lang|text)\}/) { match in values[String(match.1)] ?? "" }
        }
    }

    /// Runs the program and decodes what it wrote.
    public func render(_ request: SpeechRequest) async throws -> Clip {
        guard !request.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw SpeechError.emptyText }
        let words = try arguments(for: request)
        // Looked up and checked again at each run: the file under the name may have changed
        // since the config was checked.
        let program = CommandProgram.locate(words[0], searchPath: searchPath)
        guard let executable = program.path else {
            let reason = words[0].contains("/") ? "no executable file there" : "not found on PATH"
            throw SpeechError.commandFailed("'\(words[0])' failed (\(reason)); install it, or correct speech.command")
        }
        let template = command.split(separator: " ").map(String.init)
        if let problem = program.safetyProblem(arguments: Array(template.dropFirst())) {
            throw SpeechError.commandFailed("speech.command \(problem)")
        }
        let output = NSTemporaryDirectory() + "herald-tts-\(UUID().uuidString).wav"
        guard FileManager.default.createFile(atPath: output, contents: nil, attributes: [.posixPermissions: 0o600]),
              let outputHandle = FileHandle(forWritingAtPath: output) else {
            throw SpeechError.commandFailed("cannot create \(output) for the program's output")
        }
        defer { try? FileManager.default.removeItem(atPath: output) }
        let usesTextArgument = command.contains("{text}")
        let outcome: Outcome
        do {
            outcome = try await Self.runProgram(executable: executable, arguments: Array(words.dropFirst()),
                                                input: usesTextArgument ? nil : Array(request.text.utf8),
                                                output: outputHandle.fileDescriptor, timeout: timeout)
        } catch {
            try? outputHandle.close()
            throw SpeechError.commandFailed("cannot start '\(words[0])': \(error)")
        }
        try? outputHandle.close()
        if outcome.cancelled { throw CancellationError() }
        guard !outcome.timedOut else {
            throw SpeechError.commandFailed("'\(words[0])' did not finish within \(timeout); it was stopped")
        }
        guard outcome.status == 0, !outcome.signalled else {
            let message = outcome.errors.trimmingCharacters(in: .whitespacesAndNewlines)
            let reason = outcome.signalled ? "killed by signal \(outcome.status)" : "exit \(outcome.status)"
            throw SpeechError.commandFailed("'\(words[0])' failed (\(reason))\(message.isEmpty ? "" : ": \(message)")")
        }
        do {
            return try SoundFileDecoder.decode(path: output)
        } catch {
            throw SpeechError.commandFailed("'\(words[0])' did not write audio on standard output: \(error)")
        }
    }
}

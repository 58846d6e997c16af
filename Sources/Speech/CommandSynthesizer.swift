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
/// (`espeak-ng --stdout -- {text}`), where no program reads options.
public struct CommandSynthesizer: Synthesizer {
    public let engineName = "command"
    public let command: String
    public let timeout: Duration

    public init(command: String, timeout: Duration) {
        self.command = command
        self.timeout = timeout
    }

    /// What is wrong with a command template, for `config check`; nil when it is usable.
    public static func templateProblem(_ command: String) -> String? {
        let words = command.split(separator: " ").map(String.init)
        guard let first = words.first else { return "is empty; give a program that writes WAV on standard output" }
        if first.hasPrefix("-") { return "'\(first)' is an option where the program's name goes; start with the program" }
        if first.contains("{") {
            return "'\(first)' is a placeholder where the program's name goes; start with the program, e.g. \"piper --output_file -\""
        }
        let separator = words.firstIndex(of: "--")
        for (index, word) in words.enumerated() where word.contains("{text}") {
            guard let separator, index > separator else {
                return "'\(word)' puts the announcement text where the program reads options (text such as '-w/tmp/x.wav' would be one); leave {text} out to send the text on standard input, or put it after a '--' argument: \"espeak-ng --stdout -- {text}\""
            }
        }
        return nil
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
        let usesTextArgument = command.contains("{text}")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = words
        let output = NSTemporaryDirectory() + "herald-tts-\(UUID().uuidString).wav"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: output) }
        process.standardOutput = FileHandle(forWritingAtPath: output)
        let input = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        do { try process.run() } catch {
            throw SpeechError.commandFailed("cannot start '\(words[0])': \(error)")
        }
        if !usesTextArgument {
            // A program that exits without reading its input must not kill Herald with SIGPIPE:
            // ignored, the write fails with EPIPE instead, and the exit status tells the story.
            signal(SIGPIPE, SIG_IGN)
            try? input.fileHandleForWriting.write(contentsOf: Data(request.text.utf8))
        }
        try? input.fileHandleForWriting.close()
        let finished = try await waitForExit(process)
        guard finished else {
            process.terminate()
            throw SpeechError.commandFailed("'\(words[0])' did not finish within \(timeout)")
        }
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let reason = process.terminationStatus == 127 ? "not found on PATH" : "exit \(process.terminationStatus)"
            throw SpeechError.commandFailed("'\(words[0])' failed (\(reason))\(message.isEmpty ? "" : ": \(message)")")
        }
        do {
            return try SoundFileDecoder.decode(path: output)
        } catch {
            throw SpeechError.commandFailed("'\(words[0])' did not write audio on standard output: \(error)")
        }
    }

    private func waitForExit(_ process: Process) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return true
    }
}

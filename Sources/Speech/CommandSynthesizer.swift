import Foundation
import HeraldCore
import SoundFile

/// Any program that reads text and writes WAV on standard output: piper, festival's text2wave,
/// `espeak-ng --stdout`. Not streaming: the whole clip is read, then played.
///
/// `command` is split on spaces; `{voice}`, `{rate}`, `{pitch}` and `{lang}` are replaced in each
/// argument, and `{text}` too; without a `{text}` argument the text goes to standard input.
public struct CommandSynthesizer: Synthesizer {
    public let engineName = "command"
    public let command: String
    public let timeout: Duration

    public init(command: String, timeout: Duration) {
        self.command = command
        self.timeout = timeout
    }

    public func synthesize(_ request: SpeechRequest) async throws -> (AudioFormat, AsyncThrowingStream<[Float], any Error>) {
        let clip = try await render(request)
        let (stream, continuation) = AsyncThrowingStream<[Float], any Error>.makeStream()
        continuation.yield(clip.samples)
        continuation.finish()
        return (AudioFormat(sampleRate: clip.sampleRate, channelCount: clip.channelCount), stream)
    }

    /// Runs the program and decodes what it wrote.
    public func render(_ request: SpeechRequest) async throws -> Clip {
        guard !request.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw SpeechError.emptyText }
        var words = command.split(separator: " ").map(String.init)
        guard !words.isEmpty else { throw SpeechError.commandFailed("speech.command is empty") }
        let usesTextArgument = words.contains { $0.contains("{text}") }
        words = words.map {
            $0.replacingOccurrences(of: "{voice}", with: request.voice)
                .replacingOccurrences(of: "{rate}", with: "\(request.rate)")
                .replacingOccurrences(of: "{pitch}", with: "\(request.pitch)")
                .replacingOccurrences(of: "{lang}", with: request.language)
                .replacingOccurrences(of: "{text}", with: request.text)
        }
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

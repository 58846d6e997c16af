import Foundation
import HeraldCore
import SoundFile
import Speech
import Testing

/// The command engine's program is run without a way to hang Herald: a program that writes a lot
/// on standard error, one that never ends, and one whose task is cancelled.
@Suite(.timeLimit(.minutes(1))) struct CommandRunTests {
    init() { _ = ignoringSIGPIPE }

    /// A folder with an executable script `tts` whose body is `body`, and a short WAV `clip.wav`.
    final class ScriptFolder {
        let path = NSTemporaryDirectory() + "herald-run-\(UUID().uuidString)"

        init(_ body: String) throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try Data("#!/bin/sh\n\(body.replacingOccurrences(of: "$DIR", with: path))\n".utf8)
                .write(to: URL(fileURLWithPath: "\(path)/tts"))
            chmod("\(path)/tts", 0o755)
            let samples = (0..<8_000).map { Float(0.3 * sin(Double($0) / 5)) }
            try SoundFileEncoder.write(Clip(sampleRate: 16_000, channelCount: 1, samples: samples), to: "\(path)/clip.wav", format: .wav)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        func engine(timeout: Duration = .seconds(10)) -> CommandSynthesizer {
            CommandSynthesizer(command: "\(path)/tts", timeout: timeout)
        }
    }

    let request = SpeechRequest(text: "Payment received", language: "en", voice: "en-us", rate: 175, pitch: 50)

    /// More than a pipe holds (64 KiB) on standard error before any audio: read only after the
    /// exit, the program would wait on the full pipe until the timeout.
    @Test func aProgramThatWritesMuchOnStandardErrorFinishes() async throws {
        let folder = try ScriptFolder("""
            cat > /dev/null
            head -c 300000 /dev/zero | tr '\\0' 'e' >&2
            cat $DIR/clip.wav
            """)
        let started = ContinuousClock.now
        let clip = try await folder.engine(timeout: .seconds(5)).render(request)
        #expect(clip.durationMilliseconds == 500)
        #expect(ContinuousClock.now - started < .seconds(4))
    }

    @Test func aFailingProgramsLastWordsAreKept() async throws {
        let folder = try ScriptFolder("""
            head -c 300000 /dev/zero | tr '\\0' 'e' >&2
            echo "model file missing" >&2
            exit 3
            """)
        do {
            _ = try await folder.engine().render(request)
            Issue.record("it succeeded")
        } catch let SpeechError.commandFailed(detail) {
            #expect(detail.contains("failed (exit 3)") && detail.hasSuffix("model file missing"), "\(detail.suffix(200))")
            #expect(detail.count < 9_000)
        }
    }

    @Test func aProgramThatNeverEndsIsStoppedAtTheTimeout() async throws {
        let folder = try ScriptFolder("echo $$ > $DIR/pid\nexec sleep 60")
        let started = ContinuousClock.now
        await #expect(throws: SpeechError.self) { _ = try await folder.engine(timeout: .milliseconds(500)).render(request) }
        // Stopped, not run to its end (60 s): the bound is loose, the suite runs on two loaded cores.
        #expect(ContinuousClock.now - started < .seconds(10))
        let pid = try #require(Int32(String(contentsOfFile: "\(folder.path)/pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) != 0, "the program still runs")
    }

    @Test func cancellingTheTaskStopsTheProgram() async throws {
        let folder = try ScriptFolder("echo $$ > $DIR/pid\nexec sleep 60")
        let engine = folder.engine(timeout: .seconds(60))
        let request = request
        let task = Task { try await engine.render(request) }
        let pidFile = "\(folder.path)/pid"
        let deadline = ContinuousClock.now + .seconds(5)
        while (try? String(contentsOfFile: pidFile, encoding: .utf8))?.hasSuffix("\n") != true, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let pid = try #require(Int32(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        let cancelled = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(ContinuousClock.now - cancelled < .seconds(3))
        #expect(kill(pid, 0) != 0, "the program still runs after its task was cancelled")
    }

    /// A large text is written while the program runs, not before: a program that reads its input
    /// only after writing errors would otherwise stop both sides.
    @Test func aLargeTextReachesAProgramThatWritesErrorsFirst() async throws {
        let folder = try ScriptFolder("""
            head -c 100000 /dev/zero | tr '\\0' 'e' >&2
            wc -c > $DIR/count
            cat $DIR/clip.wav
            """)
        let text = String(repeating: "Payment received. ", count: 10_000)
        let long = SpeechRequest(text: text, language: "en", voice: "en-us", rate: 175, pitch: 50)
        let clip = try await folder.engine(timeout: .seconds(5)).render(long)
        #expect(clip.durationMilliseconds == 500)
        let count = try String(contentsOfFile: "\(folder.path)/count", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(count == "\(text.utf8.count)")
    }
}

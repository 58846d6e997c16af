import Foundation
import HeraldCore
import Logging
import PulseAudio
import Testing

/// The libpulse layer's edges: cancelling before the stream exists, and a server that never answers.
extension OnTheTestSink {
@Suite final class PlaybackCancellationTests {
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    init() throws {
        try SoundServer.require()
    }

    static func heraldStreams() throws -> Int {
        try SoundServer.readStreams().filter { $0.application == "Herald" }.count
    }

    @Test(arguments: [0, 1, 3, 10])
    func cancellingBeforeOrWhileTheStreamConnectsPlaysNothingAndLeavesNoStream(delayMilliseconds: Int) async throws {
        let connection = try await PulseConnection(logger: logger)
        let clip = Clip(sampleRate: 48_000, channelCount: 1,
                        samples: (0..<(48_000 * 3)).map { Float(0.3 * sin(Double($0) * 0.05)) })
        let started = ContinuousClock.now
        let task = Task { try await connection.play(.clip(clip), onSink: SoundServer.sink, mediaRole: "event") }
        if delayMilliseconds > 0 { try await Task.sleep(for: .milliseconds(delayMilliseconds)) }
        task.cancel()
        let report = try await task.value
        let took = ContinuousClock.now - started
        #expect(report.stoppedEarly, "cancelled after \(delayMilliseconds) ms")
        #expect(took < .seconds(1), "a 3 s clip stopped after \(took), not played in full")
        try SoundServer.waitFor("no Herald stream left on the server", timeout: 3) { try Self.heraldStreams() == 0 }
    }

    /// Found by review: the source was read before the streams began, and a failure then had no
    /// caller to reach; the stream waited a minute for input that never came (and, under the
    /// gate, stayed corked). One sink and two: the play fails at once with the source's error.
    @Test(arguments: [1, 2])
    func aSourceThatFailsBeforeTheStreamBeginsFailsThePlayAtOnce(sinks count: Int) async throws {
        let module = count > 1 ? try SoundServer.run("/usr/bin/pactl", ["load-module", "module-null-sink", "sink_name=fail_fast_\(getpid())"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines) : nil
        defer { if let module { _ = try? SoundServer.run("/usr/bin/pactl", ["unload-module", module]) } }
        let sinks = [SoundServer.sink, "fail_fast_\(getpid())"].prefix(count)
        let connection = try await PulseConnection(logger: logger)
        struct EngineGone: Error {}
        let chunks = AsyncThrowingStream<[Float], any Error> { $0.finish(throwing: EngineGone()) }
        let started = ContinuousClock.now
        let results = await connection.play(.stream(AudioFormat(sampleRate: 22_050, channelCount: 1), chunks), onSinks: Array(sinks),
                                            mediaRole: "event")
        let took = ContinuousClock.now - started
        #expect(results.count == count)
        for result in results {
            guard case .failure(let error) = result else { Issue.record("played a source that failed"); continue }
            #expect("\(error)".contains("audio source failed"), "\(error)")
        }
        #expect(took < .seconds(2), "failed after \(took)")
        try SoundServer.waitFor("no Herald stream left on the server", timeout: 3) { try Self.heraldStreams() == 0 }
    }

    static func tone(_ frequency: Double, seconds: Double) -> Clip {
        Clip(sampleRate: 48_000, channelCount: 1,
             samples: (0..<Int(48_000 * seconds)).map { Float(0.3 * sin(2 * Double.pi * frequency * Double($0) / 48_000)) })
    }

    /// A cancellation fades the warm stream; when the clip ends during that fade, the stream must
    /// not go back as the warm one at a faded volume (every later announcement would be silent).
    @Test(arguments: [60, 150, 250])
    func aClipEndingWhileItFadesLeavesTheNextAnnouncementAudible(cancelAfterMilliseconds: Int) async throws {
        try SoundServer.setSink(volumes: ["100%"], muted: false)  // the level below is against 0.3 played
        let connection = try await PulseConnection(logger: logger)
        let format = AudioFormat(sampleRate: 48_000, channelCount: 1)
        try connection.keepWarm(onSink: SoundServer.sink, format: format)
        try SoundServer.waitFor("the warm stream to connect", timeout: 3) {
            try SoundServer.readStreams().contains { $0.application == "Herald" && $0.corked }
        }
        let monitor = try MonitorRecording()
        let first = Self.tone(440, seconds: 0.3)
        let task = Task {
            try await connection.play(.clip(first), onSink: SoundServer.sink,
                                      mediaRole: "event", fadeMilliseconds: 3_000)
        }
        try await Task.sleep(for: .milliseconds(cancelAfterMilliseconds))
        task.cancel()
        _ = try await task.value
        try connection.keepWarm(onSink: SoundServer.sink, format: format)
        let next = try await connection.play(.clip(Self.tone(1_000, seconds: 0.6)), onSink: SoundServer.sink, mediaRole: "event")
        try await Task.sleep(for: .milliseconds(300))
        monitor.stop()
        #expect(!next.stoppedEarly)
        let level = monitor.heardLevel(frequency: 1_000)
        #expect(level > 0.15, "the next announcement was heard at \(level) (played at 0.3)")
        #expect(monitor.heardDuration(frequency: 1_000) > 0.4)
    }

    @Test func aServerThatAcceptsAndNeverAnswersTimesOut() async throws {
        let path = NSTemporaryDirectory() + "herald-mute-\(UUID().uuidString.prefix(8))"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(listener >= 0)
        defer {
            close(listener)
            unlink(path)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            _ = path.utf8CString.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(buffer.count))) }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        #expect(listen(listener, 4) == 0)
        let started = ContinuousClock.now
        await #expect(throws: SoundSystemError.self) {
            _ = try await PulseConnection(server: "unix:\(path)", timeout: .milliseconds(800), logger: logger)
        }
        let took = ContinuousClock.now - started
        #expect(took < .seconds(3), "gave up after \(took)")
    }
}
}

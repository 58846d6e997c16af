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

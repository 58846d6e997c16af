import Foundation
import HeraldCore
@testable import HeraldApp
import HeraldTesting
import Logging
import Testing

/// `ReturningStreams` waits for the ducked applications to reconnect, under the safeguard lock.
@Suite struct ReturningStreamsWatchTests {
    let radioDuck = DuckPlan(streamIndex: 7, original: percent(80, 80), held: percent(80, 80), ducked: percent(24, 24),
                             silenced: false, applicationName: "radio")

    func watch(_ sound: InMemorySoundSystem, lockPath: String) -> ReturningStreams {
        ReturningStreams(sound: sound, lockPath: lockPath, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
    }

    @Test(.timeLimit(.minutes(1))) func aRadioThatReconnectsLaterIsPutBackOnceTheLockIsFree() async throws {
        let sound = InMemorySoundSystem(sink: nullSink(volumes: percent(50, 50)))
        let lockPath = NSTemporaryDirectory() + "herald-returning-\(UUID().uuidString)/lock"
        // An announcement holds the safeguard when the radio comes back.
        let held = try await ProcessLock.acquire(path: lockPath, timeout: .seconds(1))
        let watching = Task { await watch(sound, lockPath: lockPath).watch([radioDuck], window: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(100))
        await sound.streamAppears(musicStream(index: 2, volumes: percent(24, 24)))
        try await Task.sleep(for: .milliseconds(200))
        #expect(await sound.streamList.first?.volumes == percent(24, 24), "not touched while the lock is held")
        held.release()
        await watching.value
        #expect(await sound.streamList.first?.volumes == percent(80, 80))
    }

    @Test(.timeLimit(.minutes(1))) func theWatchEndsWithItsWindowWhenNothingComesBack() async throws {
        let sound = InMemorySoundSystem(sink: nullSink(volumes: percent(50, 50)))
        let lockPath = NSTemporaryDirectory() + "herald-returning-\(UUID().uuidString)/lock"
        let started = ContinuousClock.now
        await watch(sound, lockPath: lockPath).watch([radioDuck], window: .milliseconds(300))
        #expect(ContinuousClock.now - started < .seconds(5))
        // A radio started after the window is the user's to set.
        await sound.streamAppears(musicStream(index: 2, volumes: percent(24, 24)))
        #expect(await sound.streamList.first?.volumes == percent(24, 24))
    }
}

import Foundation
@testable import HeraldApp
import HeraldConfig
import HeraldCore
import HeraldTesting
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import Synchronization
import Testing

/// `herald serve`'s services in order, stopped as SIGTERM stops them (`testGracefulShutdown`):
/// the queue first, which fades out what plays, restores the sink and leaves the rest queued;
/// the edges last, so no request is taken after the queue has gone.
@Suite struct HeraldDaemonShutdownTests {
    /// An edge (the HTTP API, the MQTT link) that notes what it finds when it is told to stop.
    struct EdgeProbe: Service {
        let daemon: AnnouncementDaemon
        let sound: InMemorySoundSystem
        let found: Found

        final class Found: Sendable {
            private let state = Mutex<(queueStopped: Bool, sinkVolume: Volume?)?>(nil)
            func set(_ value: (Bool, Volume?)) { state.withLock { $0 = value } }
            var value: (queueStopped: Bool, sinkVolume: Volume?)? { state.withLock { $0 } }
        }

        func run() async throws {
            try? await gracefulShutdown()
            found.set((await daemon.machine.turns.stopping, await sound.sink.volumes.loudest))
        }
    }

    @Test func aGracefulShutdownStopsTheQueueFirstRestoresTheSinkAndLeavesTheRestForTheNextStart() async throws {
        let folder = NSTemporaryDirectory() + "herald-service-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sound = InMemorySoundSystem(sink: nullSink(volumes: percent(20, 20)))
        let context = try DaemonHarness.context(folder: folder) { configuration in
            configuration.safeguard.minVolume = Volume(percent: 50)
            configuration.safeguard.targetVolume = Volume(percent: 60)
        }
        let parts = await HeraldDaemon.prepare(context: context, logger: context.logger, connect: { _, _ in sound })
        let found = EdgeProbe.Found()
        let herald = HeraldDaemon(parts: parts, edges: [EdgeProbe(daemon: parts.daemon, sound: sound, found: found)],
                                  signals: [])
        var first: AnnouncementRecord?, second: AnnouncementRecord?
        try await testGracefulShutdown { shutdown in
            let running = Task { try await herald.run() }
            await sound.holdPlayback()
            // `run` has taken up what an earlier start left: a submission now is queued once.
            _ = await parts.daemon.rowsTakenUpFromLastRun()
            first = try await Self.accepted(parts.daemon.submit(AnnouncementRequest(body: .text("Table four is ready"))))
            second = try await Self.accepted(parts.daemon.submit(AnnouncementRequest(body: .text("Table five is ready"))))
            await sound.waitUntilPlaying()
            #expect(await sound.sink.volumes.loudest == Volume(percent: 60), "raised while it speaks")
            shutdown.triggerGracefulShutdown()
            try await running.value
        }
        let atTheEdge = try #require(found.value, "the edge was told to stop")
        #expect(atTheEdge.queueStopped, "the queue stopped before the edges were told to")
        #expect(atTheEdge.sinkVolume == Volume(percent: 20), "the sink was restored before the edges were told to stop")
        // Both are left for the next start: the one cut off by the stop, and the one that waited.
        let store = context.store
        for record in [first, second] {
            let row = try await store.announcement(id: try #require(record).id)
            #expect(row != nil && row?.outcome == nil, "\(String(describing: row))")
        }
        #expect(try await store.unfinished().count == 2)
    }

    static func accepted(_ submission: AnnouncementDaemon.Submission) throws -> AnnouncementRecord {
        guard case .accepted(let record) = submission else { throw DaemonHarness.HarnessError.notAccepted }
        return record
    }
}

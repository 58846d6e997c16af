import Foundation
@testable import HeraldApp
import HeraldConfig
import HeraldCore
import Logging
import Testing

/// `?wait=true` requests wait for an announcement's outcome; one whose client hangs up (its task
/// cancelled) is answered and removed at once, not kept until the announcement ends. No sound
/// server is needed: the worker never runs, so the announcement stays queued.
@Suite struct AnnouncementWaiterTests {
    let folder = NSTemporaryDirectory() + "herald-waiters-\(UUID().uuidString)"

    func makeDaemon() throws -> AnnouncementDaemon {
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let context = try HeraldContext(configuration: HeraldConfiguration.defaults(stateDirectory: folder), logger: logger)
        return AnnouncementDaemon(context: context, connector: SoundConnector(logger: logger, onConnect: { _ in }, changed: {}))
    }

    /// The task's value, or nil when it has none within `limit` (a waiter that ignores its
    /// cancellation would otherwise hang the test).
    func value<T: Sendable>(of task: Task<T, any Error>, within limit: Duration) async -> Result<T, any Error>? {
        let (results, continuation) = AsyncStream<Result<T, any Error>?>.makeStream()
        let reader = Task { continuation.yield(await task.result) }
        let timer = Task {
            try? await Task.sleep(for: limit)
            continuation.yield(nil)
        }
        defer { reader.cancel(); timer.cancel() }
        for await first in results { return first }
        return nil
    }

    @Test func aCancelledWaitIsAnsweredAndRemoved() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let daemon = try makeDaemon()
        guard case .accepted(let record) = try await daemon.submit(AnnouncementRequest(body: .text("Table four is ready"))) else {
            Issue.record("not accepted")
            return
        }
        let waiting = Task { try await daemon.waitUntilFinished(id: record.id) }
        let deadline = ContinuousClock.now + .seconds(5)
        while await daemon.waiterCount == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(await daemon.waiterCount == 1, "the wait is registered")

        waiting.cancel()  // the client hung up
        let answer = await value(of: waiting, within: .seconds(5))
        #expect(answer != nil, "a cancelled wait returns at once")
        #expect(try answer?.get() == .some(nil), "with no outcome")
        #expect(await daemon.waiterCount == 0, "and its waiter is gone")
        await daemon.stop()
    }

    @Test func aWaitCancelledBeforeItBeginsRegistersNothing() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let daemon = try makeDaemon()
        guard case .accepted(let record) = try await daemon.submit(AnnouncementRequest(body: .text("Table five is ready"))) else {
            Issue.record("not accepted")
            return
        }
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await daemon.waitUntilFinished(id: record.id)
        }
        let answer = await value(of: waiting, within: .seconds(5))
        #expect(answer != nil, "returns at once")
        #expect(try answer?.get() == .some(nil))
        #expect(await daemon.waiterCount == 0)
        await daemon.stop()
    }

    @Test func aWaiterStillGetsTheOutcomeWhenAnotherOneIsCancelled() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let daemon = try makeDaemon()
        guard case .accepted(let record) = try await daemon.submit(AnnouncementRequest(body: .text("Table six is ready"))) else {
            Issue.record("not accepted")
            return
        }
        let staying = Task { try await daemon.waitUntilFinished(id: record.id) }
        let leaving = Task { try await daemon.waitUntilFinished(id: record.id) }
        let deadline = ContinuousClock.now + .seconds(5)
        while await daemon.waiterCount < 2 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        leaving.cancel()
        _ = await value(of: leaving, within: .seconds(5))
        #expect(await daemon.waiterCount == 1)
        await daemon.stop()  // answers the rest with nil
        let answer = await value(of: staying, within: .seconds(5))
        #expect(try answer?.get() == .some(nil))
        #expect(await daemon.waiterCount == 0)
    }
}

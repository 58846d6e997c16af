import Foundation
@testable import HeraldApp
import HeraldCore
import HeraldStore
import Testing

/// A kill in the last ~40 ms of an announcement (after its last sample, before its row's outcome
/// was committed) made the next start say it again in full (issue 27).
struct SaidMarkTests {
    @Test func anAnnouncementHeardToItsEndIsMarkedHeard() async throws {
        let harness = try await DaemonHarness()
        defer { Task { await harness.stop() } }
        let record = try await harness.submit(AnnouncementRequest(body: .text("Order 12 is ready")))
        #expect(try await harness.outcome(of: record.id)?.outcome == .played)
        #expect(SaidMark(databasePath: harness.context.configuration.databasePath).marked() == record.id)
        await harness.stop()
    }

    @Test func aRowLeftWithoutItsOutcomeButMarkedHeardIsLoggedPlayedAndNotSaidAgain() async throws {
        var leftOver: AnnouncementRecord?
        var unheard: AnnouncementRecord?
        let harness = try await DaemonHarness(beforeRun: { daemon in
            // What a kill -9 between the last sample and the commit leaves: a row with no
            // outcome, and the mark; beside it, one that was never begun.
            let context = await daemon.context
            let heard = Turn.record(for: AnnouncementRequest(body: .text("Payment received")), at: Date())
            let waiting = Turn.record(for: AnnouncementRequest(body: .text("Next customer please")), at: Date())
            _ = try await context.store.insertIfNew(heard)
            _ = try await context.store.insertIfNew(waiting)
            try SaidMark(databasePath: context.configuration.databasePath).mark(heard.id)
            leftOver = heard
            unheard = waiting
        })
        defer { Task { await harness.stop() } }
        let heard = try #require(leftOver)
        let waiting = try #require(unheard)
        #expect(try await harness.outcome(of: waiting.id)?.outcome == .played, "the one never begun is said")
        let row = try await harness.context.store.announcement(id: heard.id)
        #expect(row?.outcome == .played)
        #expect(row?.error?.contains("before the daemon stopped") == true)
        #expect(await harness.sound.playsStarted == 1, "the heard one is not said again")
        await harness.stop()
    }
}

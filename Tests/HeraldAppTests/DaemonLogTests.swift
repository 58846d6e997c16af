import Foundation
@testable import HeraldApp
import HeraldCore
import Testing

/// What the daemon writes to the journal of a box nobody looks at: enough to tell what happened,
/// never a line a second for as long as something is away (issue 27).
struct DaemonLogTests {
    /// The retry comes every second while the sink is missing: before, each brought two lines
    /// ("announcements wait" and "will be said again"), 4,000 in a 30-minute outage.
    @Test func aWaitThatLastsIsLoggedOnceAndItsEndOnce() async throws {
        let logs = LogLines()
        let harness = try await DaemonHarness(logs: logs) { $0.safeguard.sinkName = "kitchen" }
        defer { Task { await harness.stop() } }
        let record = try await harness.submit(AnnouncementRequest(body: .text("Order 12 is ready"), priority: .normal))
        // Three retries, a second apart on the test's clock.
        for _ in 0..<3 {
            #expect(await harness.eventually { harness.now.sleeping == 1 }, "the retry timer waits")
            harness.now.advance(by: 1)
        }
        #expect(await harness.eventually { harness.now.sleeping == 1 }, "and waits again")
        let waits = logs.all.filter { $0.contains("announcements wait") }
        #expect(waits.count == 1, "\(waits)")
        #expect(logs.all.filter { $0.contains("will be said again") }.isEmpty, "\(logs.all)")
        // The sink comes: said, and the end of the wait logged once.
        await harness.sound.renameSink(to: "kitchen")
        await harness.daemon.soundChanged()
        let answer = try await harness.outcome(of: record.id)
        #expect(answer?.outcome == .played)
        #expect(logs.all.filter { $0.contains("announcements play again") }.count == 1, "\(logs.all)")
        await harness.stop()
    }

    /// A SIGTERM with announcements waiting said nothing of them: they are said at the next
    /// start, and the log now says so.
    @Test func aStopWithAnnouncementsWaitingSaysHowManyStay() async throws {
        let logs = LogLines()
        let harness = try await DaemonHarness(logs: logs)
        await harness.daemon.pause()
        for index in 1...3 { _ = try await harness.submit(AnnouncementRequest(body: .text("Order \(index)"), priority: .normal)) }
        await harness.stop()
        let stop = logs.all.filter { $0.contains("stopping:") }
        #expect(stop.count == 1 && stop[0].contains("3 announcement(s)"), "\(logs.all)")
    }
}

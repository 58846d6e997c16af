import Foundation
@testable import HeraldApp
import HeraldConfig
import HeraldCore
import Logging
import Testing

/// The CLI's `--local` run goes through the daemon's one path: quiet hours hold a normal text as
/// `herald serve` holds it, and a request id already taken is not said again. The clock is the
/// test's (23:30 inside a 22:00-07:00 window), so nothing is played and no sound server is used.
@Suite struct LocalAnnouncementTests {
    let folder = NSTemporaryDirectory() + "herald-local-\(UUID().uuidString)"

    func makeContext() throws -> HeraldContext {
        var configuration = HeraldConfiguration.defaults(stateDirectory: folder)
        configuration.quietHours = QuietHours(windows: [QuietWindow("22:00-07:00")!], timeZone: TimeZone(identifier: "UTC")!)
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        return try HeraldContext(configuration: configuration, logger: logger, runtime: .folder(folder))
    }

    /// 2026-11-24 23:30 UTC.
    static let night = Date(timeIntervalSince1970: 1_795_563_000)

    @Test func aNormalTextAtNightIsDeferredAndItsRequestIDIsNotSaidTwice() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let context = try makeContext()
        #expect(context.configuration.quietHours.isQuiet(at: Self.night))
        let request = AnnouncementRequest(body: .text("Take the evening pills"), priority: .normal, requestID: "pills-1")

        guard case .deferred(let first, let until) = try await AnnouncementDaemon.announceOnce(request, context: context, now: { Self.night }) else {
            Issue.record("not deferred by quiet hours")
            return
        }
        #expect(first.outcome == nil)
        #expect(until == Self.night.addingTimeInterval(7.5 * 3600), "held until 07:00")
        // The row waits in the log for `herald serve`, which decides again when it starts.
        #expect(try await context.store.unfinished().map(\.id) == [first.id])

        // The same request id again: the original answers, nothing new is queued or logged.
        guard case .finished(let again) = try await AnnouncementDaemon.announceOnce(request, context: context, now: { Self.night }) else {
            Issue.record("a repeated request id was taken as new")
            return
        }
        #expect(again.id == first.id)
        #expect(try await context.store.unfinished().map(\.id) == [first.id])
    }

    @Test func aLowOneAtNightIsSuppressedAndLogged() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let context = try makeContext()
        let request = AnnouncementRequest(body: .text("A tip"), priority: .low)
        guard case .finished(let row) = try await AnnouncementDaemon.announceOnce(request, context: context, now: { Self.night }) else {
            Issue.record("not finished")
            return
        }
        #expect(row.outcome == .suppressedQuiet)
        #expect(try await context.store.announcement(id: row.id)?.outcome == .suppressedQuiet)
    }
}

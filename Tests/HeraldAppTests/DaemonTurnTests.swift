import Foundation
@testable import HeraldApp
import HeraldConfig
import HeraldCore
import HeraldTesting
import Testing

/// The daemon driven end to end with the in-memory sound system and the test's own `now`: no
/// sound server, no sleeping through quiet hours. Each harness has a runtime folder (and a
/// safeguard lock) of its own, so the tests run side by side.
@Suite struct DaemonTurnTests {
    @Test func anAnnouncementWaitedForIsAnsweredWithItsOutcomeAndTheSinkIsRestored() async throws {
        let harness = try await DaemonHarness()
        defer { Task { await harness.stop() } }
        let record = try await harness.submit(AnnouncementRequest(body: .text("Table four is ready")))
        let answer = try await harness.outcome(of: record.id)
        #expect(answer?.outcome == .played)
        #expect(try await harness.context.store.announcement(id: record.id)?.outcome == .played)
        let changes = await harness.sound.changes
        #expect(await harness.sound.playsStarted == 1, "\(changes)")
        #expect(await harness.sound.sinkWhilePlaying?.volumes.loudest == Volume(percent: 60), "raised to the target")
        #expect(await harness.eventually { await harness.sound.sink.volumes.loudest == Volume(percent: 20) },
                "restored after")
        await harness.stop()
    }

    /// Found by the soak: back-to-back announcements share a session, and one muted by the user
    /// during the first was played into the muted sink (logged `played`, heard by nobody).
    @Test func aSinkMutedDuringOneAnnouncementIsUnmutedForTheNextAndTheMuteIsKeptAfter() async throws {
        let harness = try await DaemonHarness()
        defer { Task { await harness.stop() } }
        await harness.sound.holdPlayback()
        let first = try await harness.submit(AnnouncementRequest(body: .text("Table four is ready")))
        let second = try await harness.submit(AnnouncementRequest(body: .text("Table five is ready")))
        await harness.sound.waitUntilPlaying(count: 1)
        await harness.sound.userSetsSinkMute(true)
        await harness.sound.releasePlayback()
        await harness.sound.waitUntilPlaying(count: 2)
        #expect(await harness.sound.sinkWhilePlaying?.muted == false, "the second is heard")
        await harness.sound.releasePlayback()
        #expect(try await harness.outcome(of: first.id)?.outcome == .played)
        #expect(try await harness.outcome(of: second.id)?.outcome == .played)
        #expect(await harness.eventually { await harness.sound.sink.muted }, "the user's mute is theirs: kept after")
        await harness.stop()
    }

    /// The status names what plays, where, how far in and how long it is: the page's progress bar
    /// and the soak's record of every play read it.
    @Test func theSnapshotShowsTheSinkAndLengthOfWhatPlays() async throws {
        let harness = try await DaemonHarness()
        defer { Task { await harness.stop() } }
        await harness.sound.holdPlayback()
        // A payment is composed from the voice pack: a clip, whose length is known before it plays.
        let record = try await harness.submit(AnnouncementRequest(body: .payment(Amount(minorUnits: 2530, currency: .usd))))
        await harness.sound.waitUntilPlaying(count: 1)
        let playing = await harness.daemon.snapshot()
        #expect(playing.current?.id == record.id)
        #expect(playing.currentSink == (await harness.sound.sink.name))
        #expect((playing.current?.durationMilliseconds ?? 0) > 300, "the composed clip's length: \(String(describing: playing.current))")
        #expect(playing.currentElapsedMilliseconds != nil)
        await harness.sound.releasePlayback()
        #expect(try await harness.outcome(of: record.id)?.outcome == .played)
        let after = await harness.daemon.snapshot()
        #expect(after.currentSink == nil && after.currentElapsedMilliseconds == nil)
        await harness.stop()
    }

    @Test func aRequestAcceptedWhileTheDaemonStartsIsSaidOnceNotQueuedAgainFromTheLog() async throws {
        // `herald serve` listens while the daemon reads the rows an earlier stop left: a row
        // accepted before that read is in the log unfinished and already queued.
        var accepted: AnnouncementRecord?
        let harness = try await DaemonHarness { _ in } beforeRun: { daemon in
            guard case .accepted(let record) = try await daemon.submit(AnnouncementRequest(body: .text("Payment received"))) else {
                return
            }
            accepted = record
        }
        defer { Task { await harness.stop() } }
        let record = try #require(accepted)
        #expect(try await harness.outcome(of: record.id)?.outcome == .played)
        _ = await harness.eventually(within: .seconds(1)) { await harness.sound.playsStarted >= 2 }
        let plays = await harness.sound.playsStarted
        #expect(plays == 1, "said \(plays) times")
        await harness.stop()
    }

    @Test func quietHoursDeferUntilNowPassesTheirEndAndAWaitIsAnsweredThen() async throws {
        // 06:59:59.5, in a 22:00-07:00 window: the daemon's release timer waits on the test's
        // `now`, which alone says when the window is over.
        let end = Date(timeIntervalSince1970: 1_795_503_600)  // 2026-11-24 07:00 UTC
        let harness = try await DaemonHarness(at: end.addingTimeInterval(-0.5)) { configuration in
            configuration.quietHours = QuietHours(windows: [QuietWindow("22:00-07:00")!], timeZone: TimeZone(identifier: "UTC")!)
        }
        defer { Task { await harness.stop() } }
        let record = try await harness.submit(AnnouncementRequest(body: .text("Take the morning pills")))
        #expect(record.outcome == nil)
        #expect(await harness.daemon.snapshot().deferred == 1, "held by quiet hours")
        let daemon = harness.daemon
        let waiting = Task { try await daemon.waitUntilFinished(id: record.id) }

        // The release timer is set; moved to just before its moment, still inside the window.
        #expect(await harness.eventually { harness.now.sleeping == 1 }, "the release timer waits")
        harness.now.advance(by: 0.4)
        #expect(harness.now.sleeping == 1, "the timer did not fire before its moment")
        #expect(await harness.sound.playsStarted == 0, "not said while it is quiet")
        #expect(await harness.daemon.snapshot().deferred == 1)

        harness.now.set(end.addingTimeInterval(1))
        let released = await harness.eventually { await harness.sound.playsStarted == 1 }
        #expect(released, "said once the window is over")
        let answer = try await waiting.value
        #expect(answer?.id == record.id)
        #expect(answer?.outcome == .played, "the deferred one's waiter gets its outcome")
        #expect(await harness.daemon.snapshot().deferred == 0)
        await harness.stop()
    }

    /// Whatever priority the till sent them at (most send none: normal), not only high.
    @Test(arguments: [Priority.high, .normal, .low])
    func morePaymentsWaitingThanTheLimitAreSaidAsOneSummary(priority: Priority) async throws {
        let harness = try await DaemonHarness { $0.queue.coalescePaymentsOver = 2 }
        defer { Task { await harness.stop() } }
        let currency = harness.context.configuration.speech.currency
        await harness.daemon.pause()
        var payments: [AnnouncementRecord] = []
        for units in [150, 275, 1000, 5] as [Int64] {
            payments.append(try await harness.submit(AnnouncementRequest(body: .payment(Amount(minorUnits: units, currency: currency)), priority: priority)))
        }
        #expect(await harness.sound.playsStarted == 0, "the queue is paused")
        await harness.daemon.resume()

        for payment in payments {
            let answer = try await harness.outcome(of: payment.id)
            #expect(answer?.outcome == .coalesced, "\(payment.body) said in the summary")
            #expect(answer?.error?.hasPrefix("said in summary ") == true)
        }
        // "said in summary <id>": the summary is a row of its own, played.
        let note = try #require(try await harness.context.store.announcement(id: payments[0].id)?.error)
        let summaryID = try #require(note.split(separator: " ").last.map(String.init))
        let summary = try await harness.outcome(of: summaryID)
        #expect(summary?.outcome == .played)
        #expect(summary?.bodyKind == .text)
        #expect(await harness.sound.playsStarted == 1, "four payments, one announcement")
        await harness.stop()
    }

    /// Found by the three-room soak (seed 2811): a summary of five payments cut off by a critical
    /// announcement was logged `interrupted` and never said again, and the payments it covered,
    /// logged `coalesced`, were never heard in full. A summary is as much a payment as they were.
    @Test func aPaymentSummaryCutOffByAnEmergencyIsSaidAgainAfterIt() async throws {
        let harness = try await DaemonHarness { $0.queue.coalescePaymentsOver = 2 }
        defer { Task { await harness.stop() } }
        let currency = harness.context.configuration.speech.currency
        await harness.daemon.pause()
        var payments: [AnnouncementRecord] = []
        for units in [150, 275, 1000] as [Int64] {
            payments.append(try await harness.submit(AnnouncementRequest(body: .payment(Amount(minorUnits: units, currency: currency)))))
        }
        await harness.sound.holdPlayback()
        await harness.daemon.resume()
        await harness.sound.waitUntilPlaying()
        let critical = try await harness.submit(AnnouncementRequest(body: .text("Smoke in the kitchen"), priority: .critical))
        #expect(try await harness.outcome(of: critical.id)?.outcome == .played)
        let note = try #require(try await harness.outcome(of: payments[0].id)?.error)
        let summaryID = try #require(note.split(separator: " ").last.map(String.init))
        let summary = try await harness.outcome(of: summaryID)
        #expect(summary?.outcome == .played, "said again after the critical one: \(String(describing: summary))")
        #expect(await harness.sound.playsStarted == 3, "the summary, the critical one, the summary again")
        await harness.stop()
    }

    @Test func aWithdrawnEntryIsNotSaid() async throws {
        let harness = try await DaemonHarness()
        defer { Task { await harness.stop() } }
        let first = try await harness.playingAndHeld(AnnouncementRequest(body: .text("Table one is ready")))
        let second = try await harness.submit(AnnouncementRequest(body: .text("Table two is ready")))
        #expect(await harness.daemon.machine.isPending(id: second.id))

        await harness.daemon.withdraw(second.id)
        #expect(await !harness.daemon.machine.isPending(id: second.id), "out of the queue")
        await harness.sound.releasePlayback()
        #expect(try await harness.outcome(of: first.id)?.outcome == .played)
        // The worker has drained: nothing more begins.
        #expect(await harness.eventually { await harness.daemon.snapshot().safeguardOpen == false })
        #expect(await harness.sound.playsStarted == 1, "only the first was said")
        #expect(try await harness.context.store.announcement(id: second.id)?.outcome == nil, "nor logged as said")
        await harness.stop()
    }

    @Test func aReloadMidTurnLeavesThePlayingOneWithTheSettingsItBeganWith() async throws {
        let harness = try await DaemonHarness()
        defer { Task { await harness.stop() } }
        let first = try await harness.playingAndHeld(AnnouncementRequest(body: .text("Table one is ready")))

        let louder = try DaemonHarness.context(folder: harness.folder) { configuration in
            configuration.safeguard.minVolume = Volume(percent: 50)
            configuration.safeguard.targetVolume = Volume(percent: 90)
            configuration.chimes = [:]
        }
        await harness.reload(louder)
        await harness.sound.releasePlayback()
        #expect(try await harness.outcome(of: first.id)?.outcome == .played)
        #expect(await harness.sound.sinkWhilePlaying?.volumes.loudest == Volume(percent: 60), "raised to the old target")
        #expect(await harness.eventually { await harness.sound.sink.volumes.loudest == Volume(percent: 20) })
        #expect(await !harness.sound.changes.contains { $0.contains("90") }, "never raised to the new target")

        // The next one goes by the new config.
        let second = try await harness.submit(AnnouncementRequest(body: .text("Table two is ready")))
        #expect(try await harness.outcome(of: second.id)?.outcome == .played)
        #expect(await harness.sound.sinkWhilePlaying?.volumes.loudest == Volume(percent: 90), "the next one: the new target")
        await harness.stop()
    }

    /// A reload that moves `database.path` while entries wait: each row's outcome is written to
    /// the file it was inserted into. Written to the new file instead, it would leave an
    /// unfinished row in the old one, which a later start with the old path says again.
    @Test func aReloadToANewDatabaseLeavesEachRowAndItsOutcomeInOneFile() async throws {
        let harness = try await DaemonHarness()
        defer { Task { await harness.stop() } }
        let first = try await harness.playingAndHeld(AnnouncementRequest(body: .text("Table one is ready")))
        let second = try await harness.submit(AnnouncementRequest(body: .text("Table two is ready")))

        let moved = try DaemonHarness.context(folder: harness.folder + "/moved") { _ in }
        await harness.reload(moved)
        let third = try await harness.submit(AnnouncementRequest(body: .text("Table three is ready")))
        await harness.sound.releasePlayback()
        for id in [first.id, second.id, third.id] { #expect(try await harness.outcome(of: id)?.outcome == .played) }

        let old = harness.context.store, new = moved.store
        for id in [first.id, second.id] {
            #expect(try await old.announcement(id: id)?.outcome == .played, "the outcome in the file its row is in")
            #expect(try await new.announcement(id: id) == nil, "and nothing in the new file")
        }
        #expect(try await old.unfinished().isEmpty, "no unfinished row left behind in the old file")
        #expect(try await new.announcement(id: third.id)?.outcome == .played, "a row accepted after the reload: in the new file")
        #expect(try await old.announcement(id: third.id) == nil)
    }
}

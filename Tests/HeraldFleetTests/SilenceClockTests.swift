import Foundation
import HeraldConfig
import HeraldCore
import HeraldFleet
import Testing

/// Silence judged at what every console has written (issue 44): a heartbeat still waiting in
/// another console's backlog is not taken for none, and a console that died holds nothing for long.
@Suite struct SilenceClockTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func theOldestMarkOfTheConsolesThatStillCountIsTheClock() {
        let marks = [SilenceClock.Mark(writtenThrough: now.addingTimeInterval(-1), movedAt: now.addingTimeInterval(-1)),
                     SilenceClock.Mark(writtenThrough: now.addingTimeInterval(-40), movedAt: now.addingTimeInterval(-2))]
        #expect(SilenceClock.judgedAt(now: now, marks: marks, databaseBackAt: .distantPast) == now.addingTimeInterval(-40))
        // No marks, or only ones ahead of now: now.
        #expect(SilenceClock.judgedAt(now: now, marks: [], databaseBackAt: .distantPast) == now)
        #expect(SilenceClock.judgedAt(now: now, marks: [.init(writtenThrough: nil, movedAt: now)], databaseBackAt: .distantPast) == now)
    }

    @Test func aConsoleThatStoppedMovingHoldsTheRulesForAMinuteAtMost() {
        let dead = SilenceClock.Mark(writtenThrough: now.addingTimeInterval(-61), movedAt: now.addingTimeInterval(-61))
        #expect(SilenceClock.judgedAt(now: now, marks: [dead], databaseBackAt: .distantPast) == now)
        let dying = SilenceClock.Mark(writtenThrough: now.addingTimeInterval(-59), movedAt: now.addingTimeInterval(-59))
        #expect(SilenceClock.judgedAt(now: now, marks: [dying], databaseBackAt: .distantPast) == now.addingTimeInterval(-59))
    }

    /// After a 5-minute outage no console could move its mark: each counts for a minute from the
    /// database's return, time for a live one to write its backlog; a dead one then stops counting.
    @Test func afterAnOutageEveryConsoleGetsAMinuteFromTheDatabasesReturn() {
        let before = SilenceClock.Mark(writtenThrough: now.addingTimeInterval(-300), movedAt: now.addingTimeInterval(-300))
        #expect(SilenceClock.judgedAt(now: now, marks: [before], databaseBackAt: now.addingTimeInterval(-5)) == now.addingTimeInterval(-300))
        #expect(SilenceClock.judgedAt(now: now, marks: [before], databaseBackAt: now.addingTimeInterval(-61)) == now)
    }

    /// The case: a hub beating every 10 s whose heartbeats went to console B; B's backlog
    /// is not written yet (its mark stands at the outage's start). Judged at B's mark the hub is
    /// online; judged at now (as before) it was offline, and with offline_after 0 s alarmed.
    @Test func aHubWhoseHeartbeatsWaitInAnotherConsoleRaisesNoAlarm() {
        var thresholds = AlarmThresholds()
        thresholds.offlineAfter = 0
        let outageStart = now.addingTimeInterval(-120)
        let presence = HubPresence(status: "online", statusAt: now.addingTimeInterval(-3600), healthAt: outageStart.addingTimeInterval(-5),
                                   intervalSeconds: 10)
        let before = AlarmRules.wanted(hub: "care-1", presence: presence, health: nil, thresholds: thresholds, now: now)
        #expect(before.map(\.key.kind) == [.offline])
        let marks = [SilenceClock.Mark(writtenThrough: outageStart, movedAt: outageStart)]
        let heard = SilenceClock.judgedAt(now: now, marks: marks, databaseBackAt: now.addingTimeInterval(-3))
        #expect(AlarmRules.wanted(hub: "care-1", presence: presence, health: nil, thresholds: thresholds, now: now, heardThrough: heard).isEmpty)
        // A hub that said offline is judged at now: its last will waits for nobody.
        let gone = HubPresence(status: "offline", statusAt: now.addingTimeInterval(-60), healthAt: nil, intervalSeconds: 10)
        #expect(AlarmRules.wanted(hub: "care-2", presence: gone, health: nil, thresholds: thresholds, now: now, heardThrough: heard)
            .map(\.key.kind) == [.offline])
    }
}

import Foundation
import HeraldConfig
import HeraldCore
@testable import HeraldFleet
import Testing

/// Alarms are one per hub and kind, and the webhook's POSTs are capped (issue 42).
@Suite struct AlarmGroupingTests {
    @Test func twoThousandAbsentRoomsAreOneAlarmWithABoundedDetail() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let rooms = (0..<2_000).map { HubHealth.Room(room: "room-\($0)", sink: nil, present: false, muted: false, volumePercent: nil) }
        let health = HubHealth(hub: "care-1", version: "1", at: now, uptimeSeconds: 5, intervalSeconds: 60, rooms: rooms, failed1h: 1)
        let presence = HubPresence(status: "online", statusAt: now, healthAt: now, intervalSeconds: 60)
        let wanted = AlarmRules.wanted(hub: "care-1", presence: presence, health: health, thresholds: AlarmThresholds(), now: now)
        #expect(wanted.count == 2_001, "the rules want one a room (and the failing one)")
        let grouped = AlarmGrouping.grouped(wanted)
        #expect(grouped.map(\.key) == [AlarmKey(hub: "care-1", kind: .failing), AlarmKey(hub: "care-1", kind: .sinkAbsent)])
        let absent = grouped[1].detail
        #expect(absent.hasPrefix("2000 rooms: room room-0 has no sink") && absent.count == AlarmGrouping.maxDetail, "\(absent)")
    }

    @Test func oneRoomKeepsItsDetailAndHubsStayApart() {
        let wanted = [WantedAlarm(key: AlarmKey(hub: "a", kind: .sinkMuted, subject: "kitchen"), detail: "kitchen muted"),
                      WantedAlarm(key: AlarmKey(hub: "b", kind: .sinkMuted, subject: "kitchen"), detail: "kitchen muted too")]
        #expect(AlarmGrouping.grouped(wanted) == [WantedAlarm(key: AlarmKey(hub: "a", kind: .sinkMuted), detail: "kitchen muted"),
                                                  WantedAlarm(key: AlarmKey(hub: "b", kind: .sinkMuted), detail: "kitchen muted too")])
    }

    @Test func theBudgetLetsABurstGoThenOneAnInterval() {
        let start = ContinuousClock.now
        var budget = NoticeBudget(burst: 3, interval: .seconds(1), now: start)
        for _ in 0..<3 {
            #expect(budget.wait(now: start) == nil)
            budget.spend()
        }
        #expect(budget.wait(now: start) == .seconds(1))
        #expect(budget.wait(now: start + .milliseconds(400)) == .milliseconds(600))
        #expect(budget.wait(now: start + .seconds(1)) == nil)
        budget.spend()
        #expect(budget.wait(now: start + .seconds(1)) != nil, "one token earned, one spent")
        // A long quiet refills the burst, no more.
        #expect(budget.wait(now: start + .seconds(100)) == nil)
        for _ in 0..<3 { budget.spend() }
        #expect(budget.wait(now: start + .seconds(100)) != nil)
    }
}

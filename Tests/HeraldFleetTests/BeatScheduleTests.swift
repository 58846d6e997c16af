@testable import HeraldFleet
import Testing

/// `herald fleet simulate` spreads its hubs' heartbeats over the interval.
@Suite struct BeatScheduleTests {
    let start = ContinuousClock.now

    @Test func hubsAreDueEvenlyOverTheIntervalEachOnceACycle() {
        var schedule = BeatSchedule(hubs: 100, interval: .seconds(10), start: start)
        #expect(schedule.due(at: start + .milliseconds(50)) == [])
        #expect(schedule.due(at: start + .seconds(1)) == [0..<10])
        #expect(schedule.due(at: start + .seconds(1)) == [], "nothing twice")
        #expect(schedule.due(at: start + .milliseconds(2_550)) == [10..<25])
        // The cycle ends and the next begins within one tick: the rest, then the next's first.
        #expect(schedule.due(at: start + .milliseconds(10_500)) == [25..<100, 0..<5])
    }

    @Test func everyHubBeatsOncePerIntervalAtTheSimulatorsTick() {
        var schedule = BeatSchedule(hubs: 100_000, interval: .seconds(60), start: start)
        var beats = Array(repeating: 0, count: 100_000)
        var tick = start
        while tick < start + .seconds(120) {
            tick += .milliseconds(100)
            for range in schedule.due(at: tick) { for hub in range { beats[hub] += 1 } }
        }
        #expect(beats.allSatisfy { $0 == 2 }, "two minutes: two beats each")
    }

    @Test func aLongPauseGivesOneRoundNotSeveral() {
        var schedule = BeatSchedule(hubs: 10, interval: .seconds(1), start: start)
        let ranges = schedule.due(at: start + .seconds(30))
        #expect(ranges.reduce(0) { $0 + $1.count } <= 20, "\(ranges)")
    }
}

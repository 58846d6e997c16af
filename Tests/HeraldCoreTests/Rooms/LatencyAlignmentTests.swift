import HeraldCore
import HeraldTesting
import Testing

/// Rooms on sinks of different latencies, on a mock clock: each held back so that all are heard
/// at once, and the onset read from one timing reading whenever the reading comes.
@Suite struct LatencyAlignmentTests {
    typealias Instant = ImmediateClock.Instant

    /// A sink as the server models it: it reads a started stream at the audio's own pace and each
    /// sample is heard `latency` after it was read (the device), and `offset` later again (what
    /// the sink does not report: a Bluetooth speaker's buffer).
    struct MockSink {
        var latency: Duration
        var offset: Duration = .zero
        /// When the first sample is heard, for a stream uncorked at `uncork`.
        func heard(uncorkedAt uncork: Instant) -> Instant { uncork.advanced(by: latency + offset) }
        /// How much of the stream it has read by `time`.
        func read(by time: Instant, uncorkedAt uncork: Instant) -> Duration { max(.zero, uncork.duration(to: time)) }
    }

    @Test func everyRoomIsHeardWhenTheSlowestIsAndTheSlowestIsNotHeld() {
        // The built-in card, a USB speaker, a Bluetooth one (its delay given as an offset), a tunnel.
        let sinks = [MockSink(latency: .milliseconds(4)), MockSink(latency: .milliseconds(35)),
                     MockSink(latency: .milliseconds(30), offset: .milliseconds(200)), MockSink(latency: .milliseconds(105))]
        let opened = ImmediateClock().now.advanced(by: .seconds(10))
        let holds = LatencyAlignment.holds(sinks.map { $0.latency + $0.offset })
        #expect(holds == [.milliseconds(226), .milliseconds(195), .zero, .milliseconds(125)])
        let heard = zip(sinks, holds).map { sink, hold in sink.heard(uncorkedAt: opened.advanced(by: hold)) }
        #expect(Set(heard).count == 1, "all at once: \(heard)")
        // The slowest room starts at once: alignment costs its first word nothing.
        #expect(heard[0] == opened.advanced(by: .milliseconds(230)))
    }

    @Test func equalLatenciesAreNotHeldAndNoRoomsIsNoHold() {
        #expect(LatencyAlignment.holds([.milliseconds(20), .milliseconds(20)]) == [.zero, .zero])
        #expect(LatencyAlignment.holds([.milliseconds(7)]) == [.zero])
        #expect(LatencyAlignment.holds([]).isEmpty)
    }

    @Test func theOnsetIsTheSameWhicheverMomentTheReadingIsTaken() {
        let sink = MockSink(latency: .milliseconds(105), offset: .milliseconds(20))
        let uncork = ImmediateClock().now.advanced(by: .seconds(3))
        // The server's "started" notice and the reading can come tens of ms late: the onset is
        // the first sample's, not the notice's.
        for late in [0, 3, 40, 250] {
            let reading = uncork.advanced(by: .milliseconds(late))
            let onset = LatencyAlignment.onset(readingAt: reading, readSinceStart: sink.read(by: reading, uncorkedAt: uncork),
                                               sinkLatency: sink.latency, offset: sink.offset)
            #expect(onset == sink.heard(uncorkedAt: uncork), "a reading \(late) ms late")
        }
    }

    @Test func twoRoomsHeldAndMeasuredAgreeOnOneMoment() {
        // What the daemon logs per room is measured the same way for each: held rooms included.
        let sinks = [MockSink(latency: .milliseconds(2)), MockSink(latency: .milliseconds(120))]
        let opened = ImmediateClock().now.advanced(by: .seconds(1))
        let holds = LatencyAlignment.holds(sinks.map(\.latency))
        let onsets = zip(sinks, holds).map { sink, hold in
            let uncork = opened.advanced(by: hold)
            let reading = uncork.advanced(by: .milliseconds(9))
            return LatencyAlignment.onset(readingAt: reading, readSinceStart: sink.read(by: reading, uncorkedAt: uncork),
                                          sinkLatency: sink.latency, offset: .zero)
        }
        #expect(onsets[0] == onsets[1] && onsets[0] == opened.advanced(by: .milliseconds(120)))
    }

    @Test func aMeasuredStartDelayWinsOverTheCorkedReadingWhichIsCapped() {
        // An idle card reports the 2 s it buffers ahead, but rewinds for a new stream: until
        // measured it counts for at most half a second, and once measured for what was measured.
        #expect(LatencyAlignment.startDelay(learned: nil, reported: .seconds(2)) == LatencyAlignment.maximumReported)
        #expect(LatencyAlignment.startDelay(learned: nil, reported: .milliseconds(105)) == .milliseconds(105))
        #expect(LatencyAlignment.startDelay(learned: .milliseconds(3), reported: .seconds(2)) == .milliseconds(3))
        #expect(LatencyAlignment.startDelay(learned: .milliseconds(118), reported: .milliseconds(96)) == .milliseconds(118))
    }
}

@testable import HeraldFleet
import Testing

/// When a console gives its client id way to another (issue 42: two consoles, one name).
@Suite struct TakeoverDetectorTests {
    let start = ContinuousClock.now

    @Test func threeConnectionsLostWithinSecondsInARowGiveWay() {
        var detector = TakeoverDetector()
        for round in 0..<3 {
            let at = start + .seconds(round * 2)
            detector.connected(at: at)
            let gaveWay = detector.down(reason: "The connection was lost.", at: at + .milliseconds(300))
            #expect(gaveWay == (round == 2), "round \(round)")
        }
    }

    @Test func aConnectionThatLastedResetsTheStreakAndAFailedConnectDoesNotCount() {
        var detector = TakeoverDetector()
        var gaveWay: [Bool] = []
        detector.connected(at: start)
        gaveWay.append(detector.down(reason: "lost", at: start + .seconds(1)))
        detector.connected(at: start + .seconds(2))
        gaveWay.append(detector.down(reason: "lost", at: start + .seconds(3)))
        // Up for a minute: a network blip, not another console.
        detector.connected(at: start + .seconds(4))
        gaveWay.append(detector.down(reason: "lost", at: start + .seconds(64)))
        // Attempts that never connected say nothing of who holds the id.
        for _ in 0..<5 { gaveWay.append(detector.down(reason: "Connection refused", at: start + .seconds(65))) }
        detector.connected(at: start + .seconds(70))
        gaveWay.append(detector.down(reason: "lost", at: start + .seconds(71)))
        #expect(gaveWay == Array(repeating: false, count: 9))
    }

    @Test func theBrokersOwnWordGivesWayAtOnce() {
        var detector = TakeoverDetector()
        let gaveWay = detector.down(reason: "the broker ended the connection: Session taken over", at: start)
        #expect(gaveWay)
    }
}

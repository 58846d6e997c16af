import HeraldCore
import HeraldTesting
import Testing

/// The one backoff of every retry loop: the figures each of them relies on, the cap, the reset
/// and the jitter.
@Suite struct BackoffTests {
    @Test func doublesFromTheFirstDelayUpToTheMaximum() {
        // The sound connector's figures: 0.25 s doubling up to 5 s.
        var backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(5))
        let delays = (0..<7).map { _ in backoff.next() }
        #expect(delays == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5)])
        #expect(backoff.attempt == 7)
    }

    @Test func peekSaysTheNextDelayWithoutCountingIt() {
        var backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30))
        #expect(backoff.peek == .milliseconds(500))
        #expect(backoff.peek == .milliseconds(500))
        _ = backoff.next()
        #expect(backoff.peek == .seconds(1))
    }

    @Test func resetStartsAgainFromTheFirstDelay() {
        var backoff = Backoff(initial: .seconds(1), maximum: .seconds(60))
        for _ in 0..<10 { _ = backoff.next() }
        #expect(backoff.peek == .seconds(60))
        backoff.reset()
        #expect(backoff.attempt == 0)
        #expect(backoff.next() == .seconds(1))
        #expect(backoff.next() == .seconds(2))
    }

    @Test func aDelayByItsAttemptNumberStopsAtTheMaximum() {
        // The alarm notices' figures: 1 s, 2 s, 4 s ... up to 5 minutes, counted from the
        // attempts kept in the database.
        let backoff = Backoff(initial: .seconds(1), maximum: .seconds(300))
        #expect(backoff.delay(attempt: 0) == .seconds(1))
        #expect(backoff.delay(attempt: -3) == .seconds(1))
        #expect(backoff.delay(attempt: 8) == .seconds(256))
        #expect(backoff.delay(attempt: 9) == .seconds(300))
        // However many attempts failed: no overflow, no long loop.
        #expect(backoff.delay(attempt: .max) == .seconds(300))
    }

    @Test func anotherFactor() {
        var backoff = Backoff(initial: .seconds(1), factor: 3, maximum: .seconds(20))
        #expect((0..<4).map { _ in backoff.next() } == [.seconds(1), .seconds(3), .seconds(9), .seconds(20)])
    }

    @Test func jitterTakesUpToItsShareOffEachDelayFromTheGivenGenerator() {
        var backoff = Backoff(initial: .seconds(1), maximum: .seconds(8), jitter: 0.5)
        var generator = SeededRandom(seed: 43)
        var replay = SeededRandom(seed: 43)
        var again = backoff
        var fractions: Set<Duration> = []
        for _ in 0..<50 {
            let full = backoff.peek
            let delay = backoff.next(using: &generator)
            #expect(delay <= full && delay >= full * 0.5)
            #expect(again.next(using: &replay) == delay)
            fractions.insert(delay)
        }
        // Drawn, not fixed: the 50 delays are not all the capped 8 s or its half.
        #expect(fractions.count > 10)
    }

    @Test func noJitterDrawsNothing() {
        var backoff = Backoff(initial: .seconds(1), maximum: .seconds(8))
        var generator = SeededRandom(seed: 7)
        var untouched = generator
        #expect(backoff.next(using: &generator) == .seconds(1))
        #expect(generator.next() == untouched.next())
    }
}

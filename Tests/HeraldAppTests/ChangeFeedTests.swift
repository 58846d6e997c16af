@testable import HeraldApp
import Testing

/// The admin page's change signals: every stream ends with `finish()`, also one subscribed while
/// the feed was finishing (its SSE response would otherwise hold a graceful stop for ever).
@Suite struct ChangeFeedTests {
    @Test func aSubscriberAfterFinishGetsAnEndedStream() async {
        let feed = ChangeFeed()
        feed.finish()
        for await _ in feed.subscribe() { Issue.record("no signal after finish") }
        #expect(feed.listenerCount == 0)
    }

    @Test func signalsCoalesceAndFinishEndsTheStream() async {
        let feed = ChangeFeed()
        let stream = feed.subscribe()
        feed.signal()
        feed.signal()
        feed.finish()
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 1, "a listener that is behind gets one signal, not a backlog")
    }

    /// Subscribers racing `finish()` on other threads: none may be left registered (unfinished).
    @Test func subscribersRacingFinishAreAllEnded() async {
        for _ in 0..<2_000 {
            let feed = ChangeFeed()
            let streams = await withTaskGroup(of: AsyncStream<Void>?.self) { group in
                for _ in 0..<4 { group.addTask { feed.subscribe() } }
                group.addTask { feed.finish(); return nil }
                return await group.compactMap { $0 }.reduce(into: []) { $0.append($1) }
            }
            guard feed.listenerCount == 0 else {
                Issue.record("a listener registered after finish() is never ended")
                return
            }
            // Nothing was signalled: each stream ends at once (one that did not would hang here).
            for stream in streams {
                var iterator = stream.makeAsyncIterator()
                #expect(await iterator.next() == nil)
            }
        }
    }
}

import Foundation
import HeraldCore
import Testing

@Suite struct AnnouncementQueueTests {
    typealias Queue = AnnouncementQueue<String>
    let t0 = Date(timeIntervalSince1970: 1_000_000)

    func entry(_ id: String, _ priority: Priority, at seconds: TimeInterval = 0) -> Queue.Entry {
        Queue.Entry(id: id, priority: priority, queuedAt: t0.addingTimeInterval(seconds), item: id)
    }

    @Test func servesByPriorityThenInOrder() {
        var queue = Queue()
        for (id, priority) in [("n1", Priority.normal), ("l1", .low), ("h1", .high), ("n2", .normal), ("c1", .critical), ("h2", .high)] {
            #expect(queue.enqueue(entry(id, priority)) == .accepted)
        }
        var order: [String] = []
        while let next = queue.next(now: t0).next { order.append(next.id) }
        #expect(order == ["c1", "h1", "h2", "n1", "n2", "l1"])
    }

    /// 300 high texts from one sender, then a till's high payment and another sender's text:
    /// the payment goes next, then the other sender (never served), not after 300 (issue 42).
    @Test func aPaymentGoesBeforeTextsAndSendersTakeTurnsInALane() {
        var queue = Queue(limit: 1_000)
        for index in 0..<300 {
            _ = queue.enqueue(Queue.Entry(id: "flood\(index)", priority: .high, queuedAt: t0, item: "", sender: "api/loopback"))
        }
        _ = queue.enqueue(Queue.Entry(id: "till", priority: .high, queuedAt: t0, item: "", sender: "api/loopback", isPayment: true))
        _ = queue.enqueue(Queue.Entry(id: "other", priority: .high, queuedAt: t0, item: "", sender: "api/token:ab"))
        _ = queue.enqueue(Queue.Entry(id: "critical", priority: .critical, queuedAt: t0, item: ""))
        var order: [String] = []
        for _ in 0..<6 { order.append(queue.next(now: t0).next?.id ?? "-") }
        #expect(order == ["critical", "till", "other", "flood0", "flood1", "flood2"])
        // Once every sender but one is served, that one's entries keep their order.
        var rest: [String] = []
        while let next = queue.next(now: t0).next { rest.append(next.id) }
        #expect(rest == (3..<300).map { "flood\($0)" })
    }

    @Test func anInterruptedEntryPutBackIsNextBeforeAnyTurnTaking() {
        var queue = Queue()
        _ = queue.enqueue(Queue.Entry(id: "payment", priority: .normal, queuedAt: t0, item: "", sender: "a", isPayment: true))
        queue.replayFirst(Queue.Entry(id: "interrupted", priority: .normal, queuedAt: t0, item: "", sender: "b"))
        #expect(queue.next(now: t0).next?.id == "interrupted")
        #expect(queue.next(now: t0).next?.id == "payment")
    }

    @Test func staleLowAnnouncementsAreDropped() {
        var policies = PriorityPolicies.defaults
        policies[.low].maxAge = .seconds(60)
        var queue = Queue(limit: 10, policies: policies)
        _ = queue.enqueue(entry("old", .low, at: 0))
        _ = queue.enqueue(entry("fresh", .low, at: 100))
        let (next, dropped) = queue.next(now: t0.addingTimeInterval(120))
        #expect(dropped.map(\.id) == ["old"])
        #expect(next?.id == "fresh")
    }

    @Test func aFullQueueRefusesNormalAndLowButNeverCriticalOrHigh() {
        var queue = Queue(limit: 2)
        _ = queue.enqueue(entry("a", .normal))
        _ = queue.enqueue(entry("b", .normal))
        #expect(queue.enqueue(entry("c", .normal)) == .refusedFull(limit: 2))
        #expect(queue.enqueue(entry("d", .low)) == .refusedFull(limit: 2))
        #expect(queue.enqueue(entry("e", .high)) == .accepted)
        #expect(queue.enqueue(entry("f", .critical)) == .accepted)
        #expect(queue.depth == [.critical: 1, .high: 1, .normal: 2, .low: 0])
    }

    @Test func anInterruptedEntryIsReplayedFirstInItsLane() {
        var queue = Queue()
        _ = queue.enqueue(entry("h2", .high))
        queue.replayFirst(entry("h1", .high))
        #expect(queue.next(now: t0).next?.id == "h1")
    }

    @Test func onlyCriticalInterrupts() {
        #expect(Queue.interrupts(.critical, current: .high))
        #expect(Queue.interrupts(.critical, current: .low))
        #expect(!Queue.interrupts(.critical, current: .critical))
        #expect(!Queue.interrupts(.high, current: .normal))
    }

    @Test func paymentsPileUpIntoOneSummary() {
        var queue = Queue()
        for index in 1...4 { _ = queue.enqueue(entry("pay\(index)", .high)) }
        _ = queue.enqueue(entry("door", .high))
        #expect(queue.takePaymentsToCoalesce(over: 4) { $0.hasPrefix("pay") }.isEmpty, "4 is not more than 4")
        let taken = queue.takePaymentsToCoalesce(over: 3) { $0.hasPrefix("pay") }
        #expect(taken.map(\.id) == ["pay1", "pay2", "pay3", "pay4"])
        #expect(queue.next(now: t0).next?.id == "door")
    }

    /// Tills send most payments without a priority (normal): 8 of them said one by one took
    /// 16.7 s, and under a payment every 4 s they were heard minutes late (issue 27).
    @Test func paymentsOfEveryPriorityButCriticalPileUpOldestFirst() {
        var queue = Queue()
        _ = queue.enqueue(entry("pay-normal-1", .normal, at: 1))
        _ = queue.enqueue(entry("pay-high", .high, at: 2))
        _ = queue.enqueue(entry("pay-low", .low, at: 3))
        _ = queue.enqueue(entry("pay-normal-2", .normal, at: 4))
        _ = queue.enqueue(entry("pay-critical", .critical, at: 5))
        _ = queue.enqueue(entry("door", .normal, at: 6))
        let taken = queue.takePaymentsToCoalesce(over: 3) { $0.hasPrefix("pay") }
        #expect(taken.map(\.id) == ["pay-normal-1", "pay-high", "pay-low", "pay-normal-2"])
        #expect(Priority.mostUrgent(of: taken.map(\.priority)) == .high)
        #expect(queue.next(now: t0).next?.id == "pay-critical", "a critical payment is said on its own")
        #expect(queue.next(now: t0).next?.id == "door")
        #expect(queue.isEmpty)
    }

    /// A summary goes where its oldest payment waited: never ahead of what waited before it
    /// (found in review: it went to the front of its lane).
    @Test func anEntryPutBackByTimeKeepsItsPlaceInTheLane() {
        var queue = Queue()
        _ = queue.enqueue(entry("order-ready", .normal, at: 1))
        _ = queue.enqueue(entry("pay-1", .normal, at: 2))
        _ = queue.enqueue(entry("door", .normal, at: 3))
        _ = queue.enqueue(entry("pay-2", .normal, at: 4))
        let taken = queue.takePaymentsToCoalesce(over: 1) { $0.hasPrefix("pay") }
        queue.insertByTime(entry("summary", .normal, at: taken[0].queuedAt.timeIntervalSince(t0)))
        #expect(queue.next(now: t0).next?.id == "order-ready")
        #expect(queue.next(now: t0).next?.id == "summary")
        #expect(queue.next(now: t0).next?.id == "door")
    }
}

import Foundation
import HeraldCore
import Testing

/// Whether an announcement is pending, who waits for it and what a withdrawal does, answered by
/// the one machine the daemon carries out.
@Suite struct DaemonMachineTests {
    /// Inserts and waiters are opaque to the machine: names stand in for them here.
    typealias Machine = DaemonMachine<String, String, String>
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func entry(_ id: String, _ priority: Priority = .normal) -> Machine.Turns.Entry {
        .init(id: id, priority: priority, queuedAt: t0, item: id)
    }

    func machine() -> Machine {
        Machine(turns: QueueMachine(queue: AnnouncementQueue(limit: 100, policies: .defaults)))
    }

    @Test func anAnnouncementIsPendingFromItsInsertToItsLoggedOutcomeAndItsWaitersAreAnsweredThen() {
        var machine = machine()
        #expect(!machine.isPending(id: "a"))
        machine.inserting("a", by: "insert a")
        #expect(machine.isPending(id: "a"), "its row is being written")
        _ = machine.turns.submit(entry("a"))
        machine.inserted("a")
        #expect(machine.isPending(id: "a"), "queued")
        let first = machine.wait(for: "a", token: UUID(), "waiter 1")
        #expect(first)
        guard case .play = machine.turns.next(now: t0) else { Issue.record("a does not play"); return }
        let disposition = machine.turns.end(.finished(interrupted: false))
        #expect(disposition == .log)
        let withdrawn = machine.turnEnded("a")
        #expect(!withdrawn)
        #expect(machine.isPending(id: "a"), "out of the queue, its outcome not yet logged")
        let second = machine.wait(for: "a", token: UUID(), "waiter 2")
        #expect(second)
        let answered = machine.logged("a")
        #expect(answered.sorted() == ["waiter 1", "waiter 2"])
        machine.turnSettled("a")
        #expect(!machine.isPending(id: "a"))
        #expect(machine.waiterCount == 0)
    }

    @Test func aWithdrawalWhileItPlaysStopsItAndItsEndIsNeitherLoggedNorSaidAgain() {
        var machine = machine()
        machine.inserting("a", by: "insert a")
        _ = machine.turns.submit(entry("a", .high))
        _ = machine.turns.next(now: t0)
        let registered = machine.wait(for: "a", token: UUID(), "waiter")
        #expect(registered)
        let (stop, unanswered) = machine.withdraw(id: "a")
        #expect(stop, "the playback fades out")
        #expect(unanswered.isEmpty, "its turn's end answers them")
        #expect(machine.isWithdrawn("a"))
        #expect(!machine.isPending(id: "a"))
        machine.inserted("a")
        #expect(machine.isWithdrawn("a"), "still marked while it plays")
        // Its stream lost as it faded: the queue's part asks to say it again.
        _ = machine.turns.end(.lost(reason: "server gone", sinkGone: false))
        let withdrawn = machine.turnEnded("a")
        #expect(withdrawn, "withdrawn: the daemon neither logs nor replays it")
        #expect(!machine.turns.queue.contains(id: "a"), "the replay is taken back")
        #expect(!machine.isWithdrawn("a"))
        let answered = machine.logged("a")
        #expect(answered == ["waiter"])
    }

    @Test func aWithdrawalOfAQueuedOneAnswersItsWaitersAtOnce() {
        var machine = machine()
        machine.inserting("a", by: "insert a")
        _ = machine.turns.submit(entry("a"))
        let token = UUID()
        let registered = machine.wait(for: "a", token: token, "waiter")
        #expect(registered)
        let (stop, unanswered) = machine.withdraw(id: "a")
        #expect(!stop)
        #expect(unanswered == ["waiter"])
        #expect(!machine.isPending(id: "a"), "withdrawn while its insert is still being wound up")
        let again = machine.stopWaiting(for: "a", token: token)
        #expect(again == nil, "answered once")
        machine.inserted("a")
        #expect(!machine.isWithdrawn("a"))
    }

    @Test func aClaimNamesTheRowBeingWrittenUntilItIsReleased() {
        var machine = machine()
        #expect(machine.claimant(of: "till/1") == nil)
        machine.claim("till/1", for: "a")
        machine.inserting("a", by: "insert a")
        #expect(machine.claimant(of: "till/1")?.id == "a")
        #expect(machine.claimant(of: "till/1")?.insert == "insert a")
        machine.inserted("a")
        machine.released("till/1")
        #expect(machine.claimant(of: "till/1") == nil)
    }

    @Test func aShutdownAnswersEveryWaiterAndTakesNoNewOne() {
        var machine = machine()
        _ = machine.turns.submit(entry("a"))
        _ = machine.turns.submit(entry("b"))
        let registeredA = machine.wait(for: "a", token: UUID(), "wa")
        #expect(registeredA)
        let registeredB = machine.wait(for: "b", token: UUID(), "wb")
        #expect(registeredB)
        _ = machine.turns.next(now: t0)
        let (fade, unanswered) = machine.shutDown()
        #expect(fade)
        #expect(unanswered.sorted() == ["wa", "wb"])
        let registeredLate = machine.wait(for: "b", token: UUID(), "late")
        #expect(!registeredLate)
        #expect(machine.isPending(id: "b"), "left queued for the next start")
    }
}

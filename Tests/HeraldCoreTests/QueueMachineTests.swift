import Foundation
import HeraldCore
import Testing

/// The daemon's queue decisions, replayed as events in microseconds (issue 7's lifecycle races).
@Suite struct QueueMachineTests {
    typealias Machine = QueueMachine<String>
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func entry(_ id: String, _ priority: Priority, at seconds: Double = 0) -> Machine.Entry {
        .init(id: id, priority: priority, queuedAt: t0.addingTimeInterval(seconds), item: id)
    }

    func machine(_ entries: Machine.Entry...) -> Machine {
        var machine = Machine(queue: AnnouncementQueue(limit: 100, policies: .defaults))
        for entry in entries { _ = machine.submit(entry) }
        return machine
    }

    /// The id `next` asks to play, or a description of what it asked instead.
    func playNext(_ machine: inout Machine, at seconds: Double = 1) -> String {
        switch machine.next(now: t0.addingTimeInterval(seconds)) {
        case .play(let entry): entry.id
        case .expire(let entries): "expire \(entries.map(\.id))"
        case .lookForSpeakers(let entries): "look for \(entries.map(\.id))"
        case .wait: "wait"
        case .idle: "idle"
        case .stop: "stop"
        }
    }

    @Test func aPartWaitingForItsSpeakerHoldsNobodyAndIsGivenBackOrExpires() {
        // `high` waits 300 s by default.
        var machine = machine(entry("kitchen-part", .high), entry("p2", .normal, at: 0.5))
        #expect(playNext(&machine) == "kitchen-part")
        #expect(machine.end(.speakersAway(reason: "no sink kitchen")) == .heldForSpeakers)
        #expect(machine.isPending(id: "kitchen-part"), "held, not lost: a waiter still waits for it")
        #expect(playNext(&machine, at: 2) == "p2", "the queue goes on without it")
        _ = machine.end(.finished(interrupted: false))
        #expect(playNext(&machine, at: 3) == "wait", "looked for again at the next retry")
        machine.soundChanged()
        #expect(playNext(&machine, at: 4) == "look for [\"kitchen-part\"]")
        #expect(playNext(&machine, at: 4) == "wait", "one look per change")
        machine.soundChanged()
        #expect(playNext(&machine, at: 5) == "look for [\"kitchen-part\"]")
        machine.speakersBack(ids: ["kitchen-part"])
        #expect(playNext(&machine, at: 5) == "kitchen-part", "said there once it is back")

        _ = machine.end(.speakersAway(reason: "no sink kitchen"))
        #expect(playNext(&machine, at: 299) == "wait")
        #expect(playNext(&machine, at: 301) == "expire [\"kitchen-part\"]", "max age counts from its arrival")
        #expect(!machine.isPending(id: "kitchen-part"))
        #expect(playNext(&machine, at: 302) == "idle")
    }

    @Test func aWithdrawnPartWaitingForItsSpeakerIsForgotten() {
        var machine = machine(entry("a", .normal))
        #expect(playNext(&machine) == "a")
        _ = machine.end(.speakersAway(reason: "gone"))
        let playing = machine.withdraw(id: "a")
        #expect(!playing)
        #expect(!machine.isPending(id: "a"))
        machine.soundChanged()
        #expect(playNext(&machine, at: 2) == "idle")
    }

    @Test func aServerRestartWithFiveQueuedLosesNoneAndSaysTheCutOffOneAgain() {
        var machine = machine(entry("p1", .high), entry("p2", .high), entry("p3", .high), entry("p4", .high), entry("p5", .high))
        #expect(playNext(&machine) == "p1")
        let result1 = machine.end(.lost(reason: "the server went away", sinkGone: false))
        #expect(result1 == .replay(closeSession: true))
        #expect(playNext(&machine, at: 2) == "wait", "no new attempt until the server is back")
        #expect(machine.waitingFor == "the server went away")
        #expect(playNext(&machine, at: 3) == "wait", "nothing failed while waiting within max age")
        machine.soundChanged()
        var said: [String] = []
        while case .play(let next) = machine.next(now: t0.addingTimeInterval(4)) {
            said.append(next.id)
            let result2 = machine.end(.finished(interrupted: false))
            #expect(result2 == .log)
        }
        #expect(said == ["p1", "p2", "p3", "p4", "p5"], "the cut-off payment first, the same id, then the rest")
    }

    @Test func anEntryWhoseRowCouldNotBeLoggedIsWithdrawnWaitingOrPlaying() {
        var machine = machine(entry("a", .normal), entry("b", .normal), entry("c", .normal))
        #expect(playNext(&machine) == "a")
        #expect(machine.withdraw(id: "b") == false, "waiting: taken out, nothing to stop")
        #expect(machine.withdraw(id: "a") == true, "playing: to be stopped")
        #expect(machine.current?.stop == .skip)
        #expect(machine.withdraw(id: "a") == false, "already being stopped")
        #expect(machine.withdraw(id: "nobody") == false)
        _ = machine.end(.finished(interrupted: true))
        #expect(playNext(&machine) == "c", "b never plays")
        _ = machine.end(.finished(interrupted: false))
        #expect(playNext(&machine) == "idle")
    }

    @Test func waitingPastTheMaxAgeExpiresWithTheReason() {
        var machine = machine(entry("p1", .high), entry("r1", .normal))
        #expect(playNext(&machine) == "p1")
        _ = machine.end(.cannotStart(reason: "no PulseAudio server reachable"))
        #expect(playNext(&machine, at: 60) == "wait")
        // A retry is due: the server is still away, and the reason stays for the log.
        machine.soundChanged()
        #expect(playNext(&machine, at: 61) == "p1")
        _ = machine.end(.cannotStart(reason: "no PulseAudio server reachable"))
        machine.soundChanged()
        // high waits 5 minutes, normal 30.
        #expect(playNext(&machine, at: 301) == "expire [\"p1\"]")
        #expect(machine.waitingFor == "no PulseAudio server reachable", "the reason stays for the log")
        #expect(playNext(&machine, at: 302) == "r1", "the retry goes on with the next")
        _ = machine.end(.cannotStart(reason: "no PulseAudio server reachable"))
        #expect(playNext(&machine, at: 303) == "wait")
        #expect(playNext(&machine, at: 1801) == "expire [\"r1\"]")
        #expect(playNext(&machine, at: 1802) == "idle")
    }

    @Test func sigtermFadesTheCurrentAndLeavesTheRestQueued() {
        var machine = machine(entry("s1", .normal), entry("s2", .normal), entry("s3", .normal), entry("s4", .normal))
        #expect(playNext(&machine) == "s1")
        let result3 = machine.shutDown()
        #expect(result3, "the current one must fade")
        let result4 = machine.end(.finished(interrupted: true))
        #expect(result4 == .leaveQueued, "not logged: said at the next start")
        #expect(playNext(&machine) == "stop", "nothing more starts")
        #expect(machine.queue.count == 3)
    }

    @Test func aStopThatCameAfterTheLastWordDoesNotSayItTwice() {
        var machine = machine(entry("pay", .high), entry("next", .high))
        #expect(playNext(&machine) == "pay")
        _ = machine.stopCurrent(.retarget)
        let retargeted = machine.end(.finished(interrupted: false))
        #expect(retargeted == .log, "heard to the end before the default sink changed")
        #expect(playNext(&machine) == "next")
        _ = machine.shutDown()
        let shut = machine.end(.finished(interrupted: false))
        #expect(shut == .log, "heard to the end before SIGTERM: logged played, not said again at the next start")
    }

    @Test func criticalInterruptsAPaymentWhichIsSaidAgainAfter() {
        var machine = machine(entry("pay", .high))
        #expect(playNext(&machine) == "pay")
        let result5 = machine.submit(entry("leak", .critical)).interrupt
        #expect(result5)
        let result6 = machine.submit(entry("fire", .critical)).interrupt
        #expect(!result6, "one stop is enough")
        let result7 = machine.end(.finished(interrupted: true))
        #expect(result7 == .replay(closeSession: false), "same session: no pumping")
        #expect(playNext(&machine) == "leak")
        let result8 = machine.submit(entry("smoke", .critical)).interrupt
        #expect(!result8, "critical never interrupts critical")
        _ = machine.end(.finished(interrupted: false))
        #expect(playNext(&machine) == "fire")
        _ = machine.end(.finished(interrupted: false))
        #expect(playNext(&machine) == "smoke")
        _ = machine.end(.finished(interrupted: false))
        #expect(playNext(&machine) == "pay")
    }

    @Test func anInterruptedNormalOneIsLoggedInterruptedNotReplayed() {
        var machine = machine(entry("tip", .normal))
        #expect(playNext(&machine) == "tip")
        let result9 = machine.submit(entry("leak", .critical)).interrupt
        #expect(result9)
        let result10 = machine.end(.finished(interrupted: true))
        #expect(result10 == .log)
        #expect(playNext(&machine) == "leak")
    }

    @Test func aChangedDefaultSinkSaysItAgainOnTheNewOne() {
        var machine = machine(entry("pay", .high))
        #expect(playNext(&machine) == "pay")
        let result11 = machine.stopCurrent(.retarget)
        #expect(result11)
        let result12 = machine.end(.finished(interrupted: true))
        #expect(result12 == .replay(closeSession: true))
        #expect(playNext(&machine) == "pay", "at once, on the new target")
    }

    @Test func aSinkGoneMidPlayIsTriedAgainAtOnce() {
        var machine = machine(entry("pay", .high))
        #expect(playNext(&machine) == "pay")
        let result13 = machine.end(.lost(reason: "sink gone", sinkGone: true))
        #expect(result13 == .replay(closeSession: true))
        #expect(machine.waitingFor == nil, "another sink may be the default already")
        #expect(playNext(&machine) == "pay")
    }

    @Test func skipLogsAndPauseHoldsTheQueue() {
        var machine = machine(entry("a", .normal), entry("b", .normal))
        #expect(playNext(&machine) == "a")
        let result14 = machine.stopCurrent(.skip)
        #expect(result14)
        let result15 = machine.end(.finished(interrupted: true))
        #expect(result15 == .log)
        machine.pause()
        #expect(playNext(&machine) == "idle")
        machine.resume()
        #expect(playNext(&machine) == "b")
        let skipped = machine.stopCurrent(.skip)
        #expect(skipped)
        let ended = machine.end(.finished(interrupted: true))
        #expect(ended == .log)
    }

    /// `?wait=true` answers when an entry has its outcome: an entry quiet hours defer, or one
    /// taken into a payment summary whose row is being written, is still pending (it was not,
    /// and the API answered at once with no outcome).
    @Test func deferredAndCoalescedEntriesStayPendingUntilTheirOutcome() {
        var machine = machine()
        machine.holdDeferred(entry("night", .normal))
        #expect(machine.isPending(id: "night"), "deferred by quiet hours: still to come")
        #expect(machine.deferredCount == 1)
        #expect(playNext(&machine) == "idle", "a deferred entry does not play")
        let released = machine.takeDeferred()
        #expect(released.map(\.id) == ["night"])
        #expect(machine.deferredCount == 0)
        #expect(machine.isPending(id: "night"), "released, not yet queued or logged")
        _ = machine.submit(released[0])
        #expect(machine.isPending(id: "night"))
        #expect(playNext(&machine) == "night")
        _ = machine.end(.finished(interrupted: false))
        #expect(!machine.isPending(id: "night"))

        for id in ["p1", "p2", "p3", "p4"] { _ = machine.submit(entry(id, .high)) }
        let taken = machine.takePaymentsToCoalesce(over: 3) { _ in true }
        #expect(taken.count == 4)
        #expect(taken.allSatisfy { machine.isPending(id: $0.id) }, "in the summary, not yet logged coalesced")
        machine.settle(id: "p1")
        #expect(!machine.isPending(id: "p1"), "logged: no longer pending")
        machine.putBack(taken[1])
        #expect(machine.isPending(id: "p2"), "put back: queued again")
    }

    @Test func aDeferredEntryCanBeWithdrawn() {
        var machine = machine()
        machine.holdDeferred(entry("a", .normal))
        machine.holdDeferred(entry("b", .normal))
        #expect(machine.withdraw(id: "a") == false, "held: taken out, nothing to stop")
        #expect(!machine.isPending(id: "a"))
        #expect(machine.takeDeferred().map(\.id) == ["b"])
    }
}

/// Found by the soak (scripts/soak.sh): a payment sent without a priority (`normal`, as most tills
/// send them) cut off by a critical announcement was logged `interrupted` and never said again.
@Suite struct QueueMachineEmergencyTests {
    typealias Machine = QueueMachine<String>
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aNormalPaymentCutOffByAnEmergencyIsSaidAgainAfterIt() {
        var machine = Machine(queue: AnnouncementQueue(limit: 100, policies: .defaults))
        let isPayment: (String) -> Bool = { $0.hasPrefix("payment") }
        _ = machine.submit(.init(id: "payment-1", priority: .normal, queuedAt: t0, item: "payment-1"))
        _ = machine.submit(.init(id: "notice", priority: .normal, queuedAt: t0, item: "notice"))
        guard case .play(let first) = machine.next(now: t0) else { Issue.record("nothing to play"); return }
        #expect(first.id == "payment-1")
        #expect(machine.submit(.init(id: "fire", priority: .critical, queuedAt: t0, item: "fire")).interrupt)
        #expect(machine.end(.finished(interrupted: true), isPayment: isPayment) == .replay(closeSession: false))
        var said: [String] = []
        while case .play(let next) = machine.next(now: t0.addingTimeInterval(1)) {
            said.append(next.id)
            _ = machine.end(.finished(interrupted: false), isPayment: isPayment)
        }
        #expect(said == ["fire", "payment-1", "notice"])
    }

    @Test func aNormalTextCutOffByAnEmergencyStaysInterrupted() {
        var machine = Machine(queue: AnnouncementQueue(limit: 100, policies: .defaults))
        _ = machine.submit(.init(id: "notice", priority: .normal, queuedAt: t0, item: "notice"))
        _ = machine.next(now: t0)
        _ = machine.submit(.init(id: "fire", priority: .critical, queuedAt: t0, item: "fire"))
        #expect(machine.end(.finished(interrupted: true), isPayment: { $0.hasPrefix("payment") }) == .log)
    }
}

import Foundation
import HeraldCore
import Speech

extension AnnouncementDaemon {
    /// What quiet hours made of an incoming entry.
    enum QuietDecision {
        /// On to the queue, perhaps for some of its rooms only, or to play quieter in some.
        case queue
        /// Suppressed in every room (its row has the outcome) or deferred (its row waits): not
        /// queued now.
        case held(AnnouncementRecord)
    }

    /// Quiet hours decide before the queue (DESIGN.md "Priorities"), room by room ("Rooms"): in a
    /// room whose quiet hours hold now, the priority's policy applies (one policy per priority,
    /// so a room is either said in now or quiet in the same way as the others): `suppress` logs
    /// that room `suppressed_quiet` in the row, `defer` says it there when its quiet hours end (a
    /// later turn of the same row), `play_quieter` lowers that room's target; critical plays
    /// everywhere. An entry whose rooms all decide alike is held, suppressed or queued whole, as
    /// in a house of one room.
    func applyQuietHours(to entry: inout Entry) async -> QuietDecision {
        var quiet = quietHours
        // A button's answer is what the person pressing asked for: a hold does not keep it back.
        if entry.item.request.source == .button { quiet.heldUntil = nil }
        let now = self.now()
        let rooms = turnKit.rooms(for: entry.item)
        guard !rooms.isEmpty else {
            // The rooms quiet hours left it for were removed by a reload: it is over.
            var record = entry.item.record
            record.outcome = record.rooms.flatMap(RoomOutcome.overall) ?? .failed
            record.error = "the rooms it waited for (\(entry.item.rooms?.joined(separator: ", ") ?? "")) are no longer in the config"
            record.finishedAt = now
            await log(record, in: entry.item.store)
            return .held(record)
        }
        let plan = quiet.plan(for: entry.priority, in: rooms, at: now)
        entry.item.quietTargets = plan.quieter
        if !plan.suppressed.isEmpty, context.configuration.configuredRooms != nil {
            let suppressed = rooms.filter { plan.suppressed.contains($0.name) }.map { room in
                RoomOutcome(room: room.name, sink: nil, outcome: .suppressedQuiet,
                            error: "quiet hours (\(quiet.windowsText(in: room))): \(entry.priority.rawValue) is suppressed")
            }
            entry.item.record.rooms = (entry.item.record.rooms ?? []) + suppressed
        }
        if plan.now.isEmpty && plan.deferred.isEmpty {
            var record = entry.item.record
            record.outcome = record.rooms.flatMap(RoomOutcome.overall) ?? .suppressedQuiet
            let windows = Set(rooms.map { quiet.windowsText(in: $0) }).sorted().joined(separator: "; ")
            record.error = "quiet hours (\(windows)): \(entry.priority.rawValue) is suppressed"
            record.finishedAt = now
            await log(record, in: entry.item.store)
            return .held(record)
        }
        if plan.now.isEmpty {
            // Deferred in every room it is for: held whole.
            let rooms = entry.item.rooms == nil ? "" : " in \(plan.deferred.joined(separator: ", "))"
            logger.notice("announcement \(entry.id) deferred to the end of quiet hours\(rooms)")
            machine.turns.holdDeferred(entry)
            scheduleDeferredRelease()
            return .held(entry.item.record)
        }
        if !plan.deferred.isEmpty || !plan.suppressed.isEmpty {
            entry.item.rooms = plan.now
            entry.item.laterRooms = plan.deferred
            if !plan.deferred.isEmpty {
                logger.notice("announcement \(entry.id) is said now in \(plan.now.joined(separator: ", ")), and in \(plan.deferred.joined(separator: ", ")) when quiet hours end there")
            }
        }
        return .queue
    }

    /// The turn of an entry said in some of its rooms is over and quiet hours hold it for others:
    /// the row keeps the rooms' outcomes so far, still without its own (a restart says it in the
    /// rooms left), and the entry waits for those rooms' quiet hours to end.
    /// A part that failed (or waited past its max age) leaves its rooms `failed` in the row: the
    /// rooms that wait still hear it. Rooms whose speaker went away while it played
    /// (`lostRooms`) wait too, within the max age from its arrival, aside from the queue.
    func holdForLaterRooms(_ entry: Entry, after record: AnnouncementRecord) async {
        var part = record
        let lost = entry.item.lostRooms
        // Those rooms are pending again: the row names them only once they have their outcome.
        part.rooms = part.rooms?.filter { !lost.contains($0.room) }
        let said = Set((part.rooms ?? []).map(\.room)).union(lost)
        let missing = (entry.item.rooms ?? []).filter { !said.contains($0) }.map {
            RoomOutcome(room: $0, sink: nil, outcome: record.outcome == .interrupted ? .interrupted : .failed, error: record.error)
        }
        part.rooms = turnKit.ordered((part.rooms ?? []) + missing) ?? part.rooms
        part.outcome = nil
        part.error = nil
        part.finishedAt = nil
        guard await awaitInsert(of: part.id) else {
            // No row (a duplicate from another process, or the log failed): nothing to say later.
            for waiter in machine.logged(part.id) { waiter.resume(returning: nil) }
            return
        }
        do { try await entry.item.store.record(part) } catch {
            logger.error("could not log where announcement \(part.id) was said so far: \(error)")
        }
        // A `--local` run tells its user now where it was said and where it waits.
        if oneShot { notify(part) }
        var rest = entry
        // Its max age counts from now for the rooms quiet hours hold: it waits for them on
        // purpose. A speaker gone is waited for within the time it had anyway.
        if !entry.item.laterRooms.isEmpty { rest.queuedAt = now() }
        rest.item.record = part
        rest.item.rooms = turnKit.ordered(names: entry.item.laterRooms + lost)
        rest.item.laterRooms = []
        rest.item.lostRooms = []
        rest.item.awaitsSpeakers = !lost.isEmpty
        if !lost.isEmpty {
            logger.warning("announcement \(entry.id): the speaker of \(lost.joined(separator: ", ")) went away while it played; said there if it is back within its max age")
        }
        switch await applyQuietHours(to: &rest) {
        case .held: break
        // Its rooms' quiet hours ended while it played there.
        case .queue: await enqueue(rest)
        }
        changes.signal()
    }

    /// When a room's quiet hours end, what they held for it goes to the queue in arrival order,
    /// to be said there now (and where it is still quiet, later: `applyQuietHours` splits it);
    /// several texts for the same rooms, all of them free now, are said as one summary, each
    /// original logged `coalesced` with the summary's id.
    func releaseDeferredAsAJob() async { await jobs.serially { await releaseDeferred() } }

    /// When a room's quiet hours end (see `releaseDeferredAsAJob`): one step of the daemon's.
    func releaseDeferred() async {
        let now = self.now()
        let quiet = quietHours
        let ready = machine.turns.takeDeferred { entry in
            turnKit.rooms(for: entry.item).contains { !quiet.inRoom($0).isQuiet(at: now) }
        }
        defer { scheduleDeferredRelease() }
        guard !ready.isEmpty else { return }
        logger.notice("quiet hours ended: \(ready.count) deferred announcement(s) go to the queue")
        // A text said nowhere yet, whose rooms are all free now, joins the others for the same
        // rooms in one summary.
        var groups: [[String]?: [Entry]] = [:], order: [[String]?] = []
        for entry in ready {
            guard case .text = entry.item.request.body, entry.item.record.rooms == nil,
                  quiet.firstEnd(in: turnKit.rooms(for: entry.item), after: now) == nil else {
                await requeue(entry, at: now)
                continue
            }
            let rooms = entry.item.rooms ?? entry.item.request.rooms
            if groups[rooms] == nil { order.append(rooms) }
            groups[rooms, default: []].append(entry)
        }
        for rooms in order {
            let held = groups[rooms] ?? []
            guard held.count > 1 else {
                for entry in held { await requeue(entry, at: now) }
                continue
            }
            let sentences = held.compactMap { entry -> String? in
                guard case .text(let text) = entry.item.request.body else { return nil }
                return text.hasSuffix(".") || text.hasSuffix("!") || text.hasSuffix("?") ? text : text + "."
            }
            // In the first one's language, as `sayAsOne` says it.
            let speech = context.configuration.speech
            let lead = speech.phrases(for: held[0].item.request.language ?? speech.language).whileItWasQuiet
            await sayAsOne(held, text: lead + " " + sentences.joined(separator: " "),
                           priority: Priority.mostUrgent(of: held.map(\.priority)) ?? .normal,
                           occasion: .quietHoursEnded, rooms: rooms)
        }
    }

    /// Queues an entry quiet hours held, deciding again room by room (a reload may have changed
    /// the windows); its max age counts from now: it waited on purpose.
    private func requeue(_ entry: Entry, at now: Date) async {
        var entry = entry
        entry.queuedAt = now
        if case .queue = await applyQuietHours(to: &entry) { await enqueue(entry) }
    }

    /// Queues an entry released from quiet hours; a full queue logs it `failed`.
    func enqueue(_ entry: Entry) async {
        let (admission, interrupt) = machine.turns.submit(entry)
        if interrupt { playing?.cancel() }
        if case .refusedFull(let limit) = admission {
            var record = entry.item.record
            record.outcome = .failed
            record.error = "queue full (\(limit) waiting) when quiet hours ended"
            record.finishedAt = now()
            await log(record, in: entry.item.store)
        }
        wake.yield()
    }

    /// Wakes when the first quiet hours holding a deferred entry's rooms end (again after a reload).
    func scheduleDeferredRelease() {
        deferredRelease?.cancel()
        guard machine.turns.deferredCount > 0, !machine.turns.stopping else { return }
        let now = self.now()
        let quiet = quietHours
        // An entry none of whose rooms is quiet any more (a reload) goes now.
        let end = machine.turns.deferred.map { quiet.firstEnd(in: turnKit.rooms(for: $0.item), after: now) ?? now }.min() ?? now
        let sleep = self.sleep
        deferredRelease = Task { [weak self] in
            let delay = max(0, end.timeIntervalSince(now)) + 0.01
            guard (try? await sleep(.seconds(delay))) != nil else { return }
            await self?.releaseDeferredAsAJob()
        }
    }
}

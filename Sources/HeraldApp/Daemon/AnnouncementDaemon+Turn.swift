import Foundation
import HeraldCore
import Speech

/// One entry's turn, as the worker runs it: render, open (or reuse) the safeguard session, play,
/// and say how it ended. The machine decides what the end means (`turnEnded`).
extension AnnouncementDaemon {
    typealias TurnEnd = QueueMachine<Queued>.TurnEnd

    /// One entry's turn. The row it returns is filled in for logging; whether it is logged is the
    /// machine's decision. `entry.item.lostRooms` says where its speaker went away while it played.
    func turn(_ entry: inout Entry) async -> (TurnEnd, AnnouncementRecord) {
        // One config for the whole turn: a reload during one of its awaits applies from the next
        // turn on, so an announcement is never rendered with one config and played with another.
        let kit = turnKit
        let requested = ContinuousClock.now
        var record = entry.item.record
        // The server first: an announcement waiting for one is not rendered again every second.
        let sound: any SoundConnection
        do {
            sound = try await connector.current()
        } catch {
            return (.cannotStart(reason: "\(error)"), record)
        }
        let rendered: RenderedAudio
        do {
            rendered = try await kit.renderer.render(entry.item.request)
        } catch {
            kit.markFailed(&record, error)
            return (.failed, record)
        }
        if machine.turns.current?.stop != nil || interrupted {
            // Stopped (SIGTERM, a critical one, Ctrl-C) before it began: nothing to open or undo.
            return (.finished(interrupted: true), interruptedRecord(record))
        }
        let rooms = kit.rooms(for: entry.item)
        guard !rooms.isEmpty else {
            kit.markFailed(&record, HeraldFailure.announcementFailed("the rooms it was for are no longer in the config"))
            return (.failed, record)
        }
        let session: SafeguardSession
        switch await openedSession(for: entry, rooms: rooms, on: sound, kit: kit) {
        case .ready(let ready): session = ready
        case .ended(.cannotStart(let reason), _) where !(record.rooms ?? []).isEmpty:
            // A later part (said in its other rooms already, or they were quiet): it waits aside
            // for its speakers, not in front of the others.
            return (.speakersAway(reason: reason), record)
        case .ended(let end, let mark):
            mark(&record)
            return (end, record)
        }
        // The restore journal is on disk (or was not needed): the row may follow.
        machine.insert(of: entry.id)?.start()
        let (playRooms, leftOut) = session.rooms(toPlayFor: entry.item.request.priority, policies: kit.configuration.priorities)
        guard !playRooms.isEmpty else {
            kit.markSuppressed(&record, sink: session.before, rooms: leftOut)
            return (.suppressed, record)
        }
        let (played, playback) = await speak(entry, rendered, in: session, rooms: playRooms, leftOut: leftOut,
                                             record: record, requested: requested, kit: kit)
        let (end, ended) = await ending(of: entry, played, playback, rendered: rendered, on: sound, kit: kit)
        if case .finished = end {
            // Played in some rooms while the speakers of others went away: those wait for them.
            let opened = Set(playRooms.map(\.room.name))
            entry.item.lostRooms = (ended.rooms ?? []).filter { $0.outcome == .missed && opened.contains($0.room) }.map(\.room)
        }
        return (end, ended)
    }

    /// What opening the safeguard for a turn came to.
    enum SessionStep {
        case ready(SafeguardSession)
        /// The turn ends here (suppressed, failed, or waiting), its row filled in by `mark`.
        case ended(TurnEnd, mark: (inout AnnouncementRecord) -> Void)
    }

    /// The open session when it fits this entry (the same connection, rooms and quiet targets, and
    /// nothing changed by the user), else a new one.
    func openedSession(for entry: Entry, rooms: [Room], on sound: any SoundConnection, kit: Turn) async -> SessionStep {
        let priority = entry.item.request.priority, policies = kit.configuration.priorities
        if let open = session, open.sound !== sound || open.quietTargets != entry.item.quietTargets { await closeSession() }
        if let open = session, case .reopen(let reason) = await open.fit(for: rooms, priority: priority, policies: policies) {
            // Found by the soak: a sink muted during the last one had the rest of the session
            // played into it, logged `played`.
            if case .changedByUser = reason { logger.info("applying the safeguard again: \(reason)") }
            await closeSession()
        }
        if let session { return .ready(session) }
        do {
            switch try await SafeguardSession.open(context: kit.context, sound: sound, rooms: rooms, priority: priority,
                                                   quietTargets: entry.item.quietTargets, lockTimeout: .seconds(30)) {
            case .suppressedMuted(let sink, let rooms):
                return .ended(.suppressed, mark: { kit.markSuppressed(&$0, sink: sink, rooms: rooms) })
            case .opened(let opened):
                session = opened
                sessionIsFresh = true
                return .ready(opened)
            }
        } catch let error as SoundSystemError where error.meansWait {
            return .ended(.cannotStart(reason: "\(error)"), mark: { _ in })
        } catch {
            return .ended(.failed, mark: { kit.markFailed(&$0, error) })
        }
    }

    /// Plays the rendered entry in `rooms`, in a task of its own so a critical announcement (or a
    /// skip, a stop, a new default sink) can cancel it: the playback fades out.
    func speak(_ entry: Entry, _ rendered: RenderedAudio, in session: SafeguardSession, rooms playRooms: [SafeguardSession.HeldRoom],
               leftOut: [RoomOutcome], record: AnnouncementRecord, requested: ContinuousClock.Instant,
               kit: Turn) async -> (AnnouncementRecord, Turn.Playback) {
        // The rooms an earlier turn of this row said it in (quiet hours held it for these), or
        // quiet hours suppressed it in, keep their outcomes.
        let notPlayed = (record.rooms ?? []) + leftOut
        // Only the first announcement of a session needs the lead-in: the sinks are awake after it.
        let leadIn = sessionIsFresh ? session.leadIn() : 0
        sessionIsFresh = false
        let request = entry.item.request, isLastPart = entry.item.laterRooms.isEmpty
        let task = Task { () -> (AnnouncementRecord, Turn.Playback) in
            var record = record
            let (result, rooms) = await kit.play(rendered, request: request, in: session, rooms: playRooms, record: &record,
                                                 requested: requested, leadIn: leadIn, isLastPart: isLastPart)
            record.rooms = kit.roomOutcomes(rooms, notPlayed: notPlayed, playback: result)
            return (record, result)
        }
        // Its length when it is a clip (a streamed sentence's is known only at its end): the page's
        // progress bar, and the soak's kills aimed at its end.
        var sinks: [String] = []
        for room in playRooms where !sinks.contains(room.sinkName) { sinks.append(room.sinkName) }
        playing = ({ task.cancel() }, now(), sinks, rendered.source.knownDurationMilliseconds)
        changes.signal()
        // A stop decided before the task existed (a critical one arriving meanwhile) applies now.
        if machine.turns.current?.stop != nil { task.cancel() }
        let targetWatch = watchTarget(of: session, entryID: entry.id)
        defer {
            targetWatch?.cancel()
            playing = nil
        }
        return await task.value
    }

    /// How a playback ended: lost with its server or sink (said again), stopped from outside,
    /// stopped before its stream began, or played (its row finished).
    func ending(of entry: Entry, _ played: AnnouncementRecord, _ playback: Turn.Playback, rendered: RenderedAudio,
                on sound: any SoundConnection, kit: Turn) async -> (TurnEnd, AnnouncementRecord) {
        var record = played
        if case .failure(let error as SoundSystemError) = playback, error.meansWait || error.isSinkGone {
            // A stream killed while its sink is still there was stopped by someone (pavucontrol):
            // said again, it would only be killed again.
            if case .sinkGone(let gone) = error, (try? await sound.sink(named: gone)) != nil {
                kit.markFailed(&record, SoundSystemError.operationFailed("Herald's stream was stopped from outside"))
                return (.failed, record)
            }
            logger.warning("announcement \(entry.id) lost: \(error)")
            return (.lost(reason: "\(error)", sinkGone: error.isSinkGone), record)
        }
        if case .failure(let error) = playback, error is CancellationError {
            // Stopped (skip, a critical one, Ctrl-C) before its stream began: nothing was heard.
            return (.finished(interrupted: true), interruptedRecord(record))
        }
        do {
            try await kit.finish(&record, playback: playback, rendered: rendered)
        } catch {
            kit.markFailed(&record, error)
            return (.failed, record)
        }
        return (.finished(interrupted: record.outcome == .interrupted), record)
    }

    private func interruptedRecord(_ record: AnnouncementRecord) -> AnnouncementRecord {
        var record = record
        record.outcome = .interrupted
        record.finishedAt = now()
        return record
    }

    /// With no configured sink, stops the current announcement when the server's default sink
    /// becomes another one, so it is said where the listener now listens.
    func watchTarget(of session: SafeguardSession, entryID: String) -> Task<Void, Never>? {
        guard let follower = session.held.first(where: { $0.room.sink == .serverDefault }) else { return nil }
        let sound = session.sound
        let sinkName = follower.sinkName
        return Task { [weak self] in
            guard let events = try? await sound.events() else { return }
            for await event in events where event == .serverChanged {
                guard let now = try? await sound.serverInfo().defaultSinkName, now != sinkName,
                      !Task.isCancelled else { continue }
                await self?.stopCurrent(.retarget, id: entryID)
                return
            }
        }
    }

    func closeSession() async {
        guard let open = session else { return }
        session = nil
        let failures = await open.close()
        guard !failures.isEmpty else { return }
        guard open.sound.isConnected else {
            logger.error("restore incomplete (\(failures)); the journal is applied when the server is back")
            restoreFailures = failures
            return
        }
        // The server is still there (a request timed out): try the journal once more now rather
        // than leave the sink raised until the next announcement. The session's own context: a
        // reload since it opened may have moved the journal.
        do {
            _ = try await JournalRestorer(context: open.context).restore(using: open.sound)
        } catch {
            logger.error("restore incomplete (\(failures)), and again (\(error)); the journal stays for the next start or reconnect")
            restoreFailures = failures
        }
    }
}

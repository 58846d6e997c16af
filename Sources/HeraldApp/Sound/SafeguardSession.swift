import HeraldCore

/// The safeguards of one announcement's rooms held open, with the process lock, across one or
/// more back-to-back announcements to the same rooms (DESIGN.md rule 8: no pumping the volume
/// between them). Each room's sink has a safeguard of its own, with the room's settings; one room
/// that cannot be opened (unplugged, muted under `respect`, failing) costs the others nothing.
public final class SafeguardSession: Sendable {
    public enum Opening: Sendable {
        /// Every room is muted, and the mute policy is `respect`: nothing changed, nothing to play.
        /// The first muted sink, and every room with why it was left out.
        case suppressedMuted(SinkState, rooms: [RoomOutcome])
        case opened(SafeguardSession)
    }

    /// One room's sink with its safeguard open.
    public struct HeldRoom: Sendable {
        public let room: Room
        public let sinkName: String
        /// The sink as it was before the safeguard changed it.
        public let before: SinkState
        public let entry: JournalEntry
        /// The reading its sink was opened with (its own, or that of the first room on its sink):
        /// the floor and the gain it earned, before `max_volume` and quiet hours cap the volume.
        public let noise: NoiseReading?
        let safeguard: Safeguard
    }

    public let sound: any SoundConnection
    /// Where the rooms were when it opened: the next announcement reuses the session only when its
    /// rooms are where these are (a sink plugged in or a new default opens afresh).
    public let placements: [RoomPlacement]
    /// The rooms with a safeguard open, in the house's order.
    public let held: [HeldRoom]
    /// The rooms not opened, with why: no sink, muted under `respect`, or an error.
    public let notOpened: [RoomOutcome]
    /// The quiet-hours targets it was opened with, by room: a louder announcement needs another session.
    public let quietTargets: [String: Volume]
    /// The settings it was opened with: its journal is the one a failed close retries, even
    /// after a reload moved the state folder or the database.
    public let context: HeraldContext
    let lock: ProcessLock

    private init(context: HeraldContext, sound: any SoundConnection, placements: [RoomPlacement], held: [HeldRoom],
                 notOpened: [RoomOutcome], quietTargets: [String: Volume], lock: ProcessLock) {
        self.context = context
        self.sound = sound
        self.placements = placements
        self.held = held
        self.notOpened = notOpened
        self.quietTargets = quietTargets
        self.lock = lock
    }

    /// The first room's sink: the one sink of a house without `rooms:`.
    public var sinkName: String { held[0].sinkName }
    /// The first room's sink as it was before.
    public var before: SinkState { held[0].before }

    /// Takes the lock, restores any journal a dead process left, finds each room's sink, and
    /// opens a safeguard on each with the mute policy of `priority` (critical always overrides).
    /// - Parameter quietTargets: quiet hours' `play_quieter` target volume, in the rooms it applies in.
    /// - Throws: what kept every room from opening; an error that `meansWait` when no room has a
    ///   sink now (the announcement waits for one, as it always did for the one sink).
    public static func open(context: HeraldContext, sound: any SoundConnection, rooms: [Room], priority: Priority,
                            quietTargets: [String: Volume] = [:], lockTimeout: Duration) async throws -> Opening {
        let lock = try await ProcessLock.acquire(path: context.lockPath, timeout: lockTimeout)
        // Its rooms' microphones stop measuring now, before a sound is made (Herald never hears
        // itself), and each room's gain is what the room sounded like until now.
        let noise = rooms.reduce(into: [String: NoiseReading]()) { $0[$1.name] = context.roomNoise.hold($1.name) }
        // Each hold is released once: here for the rooms left out, by `close` for the others.
        var holding = Set(noise.keys)
        func letGo(_ room: String) { if holding.remove(room) != nil { context.roomNoise.release(room) } }
        do {
            try await context.recoverPendingJournal(with: context.safeguard(on: sound), on: sound)
            let placements = try await RoomPlacement.place(rooms, on: sound)
            let opened = await openEach(placements, context: context, sound: sound, priority: priority, quietTargets: quietTargets,
                                        noise: noise)
            var held: [HeldRoom] = [], notOpened: [RoomOutcome] = [], firstError: (any Error)?, muted: SinkState?
            for (placement, result) in zip(placements, opened) {
                switch result {
                case .success(.opened(let before, let entry, let safeguard)):
                    // Counted once per sink, however many rooms share it.
                    if !held.contains(where: { $0.sinkName == before.name }) { HeraldMetrics.opened(entry) }
                    // A sink shared by rooms was opened with its first room's gain: that is its receipt.
                    let opener = placements.first { $0.sinkName == before.name }?.room.name ?? placement.room.name
                    held.append(HeldRoom(room: placement.room, sinkName: before.name, before: before, entry: entry,
                                         noise: noise[opener], safeguard: safeguard))
                case .success(.suppressed(let sink)):
                    muted = muted ?? sink
                    notOpened.append(RoomOutcome(room: placement.room.name, sink: sink.name, outcome: .suppressedMuted))
                case .failure(let error):
                    firstError = firstError ?? error
                    let absent = error is RoomPlacement.Miss || (error as? SoundSystemError)?.meansWait == true
                    notOpened.append(RoomOutcome(room: placement.room.name, sink: placement.sinkName,
                                                 outcome: absent ? .missed : .failed, error: "\(error)"))
                }
            }
            // The rooms left out are listened to again at once.
            for room in notOpened { letGo(room.room) }
            guard !held.isEmpty else {
                lock.release()
                // A room was there but muted under `respect`: the announcement is not for now,
                // whatever the other rooms lack (waiting for them would say it later, muted or not).
                if let muted { return .suppressedMuted(muted, rooms: notOpened) }
                throw Self.waitable(firstError ?? SoundSystemError.noDefaultSink)
            }
            return .opened(SafeguardSession(context: context, sound: sound, placements: placements, held: held,
                                            notOpened: notOpened, quietTargets: quietTargets, lock: lock))
        } catch {
            for room in holding { letGo(room) }
            lock.release()
            throw error
        }
    }

    private enum RoomOpening: Sendable {
        case opened(SinkState, JournalEntry, Safeguard)
        case suppressed(SinkState)
    }

    /// Opens every placed room's safeguard at once (each sink once, however many rooms share it).
    private static func openEach(_ placements: [RoomPlacement], context: HeraldContext, sound: any SoundConnection,
                                 priority: Priority, quietTargets: [String: Volume],
                                 noise: [String: NoiseReading]) async -> [Result<RoomOpening, any Error>] {
        var firstRoomOfSink: [String: Int] = [:]
        for (index, placement) in placements.enumerated() {
            if let sink = placement.sinkName, firstRoomOfSink[sink] == nil { firstRoomOfSink[sink] = index }
        }
        var bySink: [String: Result<RoomOpening, any Error>] = [:]
        await withTaskGroup(of: (String, Result<RoomOpening, any Error>).self) { group in
            for (sink, index) in firstRoomOfSink {
                let room = placements[index].room
                // The buttons' level, raised for the room's noise (quiet hours then cap it).
                let settings = NoiseLaw.applied(noise[room.name]?.gainDB ?? 0,
                                                to: context.roomVolumes.applied(to: room.safeguard, room: room.name))
                group.addTask {
                    let safeguard = context.safeguard(on: sound, settings: settings, quietTarget: quietTargets[room.name])
                    let mute = context.configuration.priorities.mutePolicy(for: priority, fallback: settings.mutePolicy)
                    return (sink, await Result(catchingAsync: {
                        switch try await safeguard.open(sinkName: sink, mute: mute) {
                        case .suppressedMuted(let state): .suppressed(state)
                        case .opened(let before, let entry): .opened(before, entry, safeguard)
                        }
                    }))
                }
            }
            for await (sink, result) in group { bySink[sink] = result }
        }
        return placements.map { placement in
            switch placement.sink {
            case .failure(let miss): .failure(miss)
            case .success(let sink): bySink[sink] ?? .failure(SoundSystemError.noSuchSink(sink))
            }
        }
    }

    /// No room has a sink: the error the daemon waits on, as it does for the one sink. A match
    /// that fits two sinks is the config's to fix: it fails rather than waits.
    private static func waitable(_ error: any Error) -> any Error {
        guard let miss = error as? RoomPlacement.Miss else { return error }
        switch miss {
        case .absent(.serverDefault): return SoundSystemError.noDefaultSink
        case .absent: return SoundSystemError.noSuchSink("\(miss)")
        case .ambiguous: return miss
        }
    }

    /// Whether this session can take the next announcement, to `rooms` at `priority`
    /// (`SessionFit.decide`), from one look at the server: its sinks, and its default sink when a
    /// room follows it.
    public func fit(for rooms: [Room], priority: Priority, policies: PriorityPolicies) async -> SessionFit {
        let followsDefault = (rooms + placements.map(\.room)).contains { $0.sink == .serverDefault }
        async let sinks = try? sound.sinks()
        async let info = followsDefault ? try? sound.serverInfo() : nil
        let held = SessionFit.Held(
            placed: placements.map { ($0.room.name, $0.sinkName) },
            open: self.held.map { ($0.room.name, $0.sinkName, $0.entry) },
            leftOut: notOpened.compactMap { left in placements.first { $0.room.name == left.room }.map { ($0.room, left.outcome) } })
        let (seen, server) = await (sinks, info)
        // A default sink that could not be read says nothing moved either.
        return SessionFit.decide(held, rooms: rooms, priority: priority, policies: policies,
                                 sinks: followsDefault && server == nil ? nil : seen, defaultSink: server?.defaultSinkName)
    }

    /// The rooms an announcement of `priority` plays in, and those it is not said in, with why: a
    /// session opened for a priority that overrides the mute does not carry a `respect` one into
    /// a room that was muted.
    public func rooms(toPlayFor priority: Priority, policies: PriorityPolicies) -> (play: [HeldRoom], leftOut: [RoomOutcome]) {
        var play: [HeldRoom] = [], leftOut = notOpened
        for room in held {
            if room.before.muted && policies.mutePolicy(for: priority, fallback: room.room.safeguard.mutePolicy) == .respect {
                leftOut.append(RoomOutcome(room: room.room.name, sink: room.sinkName, outcome: .suppressedMuted))
            } else {
                play.append(room)
            }
        }
        return (play, leftOut)
    }

    /// The lead-in the first sound needs: the longest of the rooms', so a speaker waking up holds
    /// the others and they all start in step.
    public func leadIn() -> Int { held.map { $0.room.safeguard.leadIn(for: $0.before) }.max() ?? 0 }

    /// Restores every room's sink and streams at once, and releases the lock. Returns what could
    /// not be restored, room by room.
    public func close() async -> [String] {
        let restorations = await withTaskGroup(of: Safeguard.Restoration?.self) { group in
            for room in held { group.addTask { await room.safeguard.close() } }
            var all: [Safeguard.Restoration] = []
            for await restoration in group { if let restoration { all.append(restoration) } }
            return all
        }
        lock.release()
        // Listening starts again a sense delay after the last sample, not during the echo.
        for room in held { context.roomNoise.release(room.room.name) }
        for restoration in restorations { HeraldMetrics.restored(restoration, replayingJournal: false) }
        return restorations.flatMap(\.failures)
    }
}

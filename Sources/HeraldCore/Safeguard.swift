import Logging

/// The open/close pair around playback (DESIGN.md "Safeguard rules").
///
/// `open` snapshots the sink, journals the snapshot, ducks the other streams, unmutes and raises;
/// `close` restores the sink first, then un-ducks. Streams that appear while open are ducked too.
/// Back-to-back announcements play between one `open` and one `close`.
public actor Safeguard {
    /// The result of `open`.
    public enum Opening: Sendable, Equatable {
        /// The sink is muted and the mute policy is `respect`: nothing was changed, do not play.
        case suppressedMuted(SinkState)
        /// Changes applied; play, then `close()`.
        case opened(before: SinkState, entry: JournalEntry)
    }

    /// What `close` or `recoverPending` did.
    public struct Restoration: Sendable, Equatable {
        /// The journal as it stood at the end (with streams ducked after the open).
        public var entry: JournalEntry
        public var actions: RestoreActions
        /// Errors met while restoring (the journal is kept when there are any).
        public var failures: [String]
    }

    private let sound: any SoundSystem
    private let journal: any RestoreJournal
    private let settings: SafeguardSettings
    private let clock: any Clock<Duration>
    private let logger: Logger
    private let processID: Int32

    private var entry: JournalEntry?
    /// False while nothing was changed yet, so nothing was journaled.
    private var journaled = false
    private var sinkIndex: UInt32 = 0
    private var watcher: Task<Void, Never>?
    /// The duck ramp, when it runs beside the first words (no sink change waits for it).
    private var backgroundDuck: Task<Void, Never>?

    public init(sound: any SoundSystem, journal: any RestoreJournal, settings: SafeguardSettings,
                clock: any Clock<Duration>, logger: Logger, processID: Int32) {
        self.sound = sound
        self.journal = journal
        self.settings = settings
        self.clock = clock
        self.logger = logger
        self.processID = processID
    }

    /// True between a successful `open` and its `close`.
    public var isOpen: Bool { entry != nil }

    /// Snapshots `sinkName` and applies the safeguard: duck first, then unmute and raise, so the
    /// radio never blasts for a moment at the raised volume.
    public func open(sinkName: String) async throws -> Opening {
        precondition(entry == nil, "Safeguard.open called twice without close")
        let sink = try await sound.sink(named: sinkName)
        let streams = try await sound.streams()
        switch SafeguardPolicy.decide(sink: sink, streams: streams, settings: settings) {
        case .suppressMuted:
            logger.info("sink muted and mute policy is respect: not playing", metadata: ["sink": "\(sinkName)"])
            return .suppressedMuted(sink)
        case .proceed(let unmute, let raiseTo, let ducks):
            let planned = JournalEntry(
                sinkName: sink.name, originalVolumes: sink.volumes, originalMuted: sink.muted,
                setVolumes: raiseTo, unmuted: unmute, ducks: ducks, processID: processID)
            let changesSink = unmute || raiseTo != nil
            // Nothing to change, nothing to journal: a synced write is the slowest step of an open.
            if changesSink || !ducks.isEmpty {
                try await journal.save(planned)
                journaled = true
            }
            entry = planned
            sinkIndex = sink.index
            do {
                let events = try await sound.events()
                watcher = Task { [weak self] in
                    for await event in events {
                        guard case .streamAppeared(let index) = event else { continue }
                        await self?.duckNewStream(index: index)
                    }
                }
                let moves = ducks.map { ($0.streamIndex, $0.original, $0.ducked) }
                if changesSink {
                    // The radio must be down before the sink goes up, or it blasts for a moment.
                    await rampAll(moves)
                    if unmute { try await sound.setSinkMute(named: sink.name, to: false) }
                    if let raiseTo { try await sound.setSinkVolume(named: sink.name, to: raiseTo) }
                } else if !moves.isEmpty {
                    // The sink stays as it is: the radio fades down under the first words.
                    backgroundDuck = Task { await self.rampAll(moves) }
                }
            } catch {
                logger.error("safeguard open failed, restoring", metadata: ["error": "\(error)"])
                _ = await close()
                throw error
            }
            logger.debug("safeguard open", metadata: [
                "sink": "\(sink.name)", "unmuted": "\(unmute)",
                "raised": "\(raiseTo.map(\.description) ?? "no")", "ducked": "\(ducks.count)",
            ])
            return .opened(before: sink, entry: planned)
        }
    }

    /// Restores what `open` changed, except what the user changed meanwhile, and clears the journal.
    /// Returns nil when the safeguard was not open.
    public func close() async -> Restoration? {
        watcher?.cancel()
        watcher = nil
        await backgroundDuck?.value
        backgroundDuck = nil
        guard let current = entry else { return nil }
        let restoration = await restore(current, knowledge: .exact, clearJournal: journaled)
        entry = nil
        journaled = false
        return restoration
    }

    /// Restores a journal left by a process that died with the safeguard open (rule 9).
    /// Returns nil when there was nothing pending.
    public func recoverPending() async throws -> Restoration? {
        guard let pending = try await journal.pending() else { return nil }
        logger.notice("restoring a pending journal left by process \(pending.processID)",
                      metadata: ["sink": "\(pending.sinkName)"])
        return await restore(pending, knowledge: .afterCrash, clearJournal: true)
    }

    private func restore(_ entry: JournalEntry, knowledge: RestorePolicy.Knowledge,
                         clearJournal: Bool) async -> Restoration {
        var failures: [String] = []
        var sink: SinkState?
        var streams: [StreamState] = []
        do {
            sink = try await sound.sink(named: entry.sinkName)
        } catch SoundSystemError.noSuchSink {
            logger.warning("sink \(entry.sinkName) is gone; nothing to restore on it")
        } catch {
            failures.append("reading sink \(entry.sinkName): \(error)")
        }
        do { streams = try await sound.streams() } catch { failures.append("listing streams: \(error)") }
        guard failures.isEmpty else {
            logger.error("restore failed; journal kept for 'herald restore'", metadata: ["errors": "\(failures)"])
            return Restoration(entry: entry,
                               actions: .init(sinkVolumes: nil, sinkMuted: nil, streams: [], keptUserChanges: []),
                               failures: failures)
        }
        let actions = RestorePolicy.actions(for: entry, sink: sink, streams: streams, knowledge: knowledge)
        // The sink first, then the streams: un-ducking into a still-raised sink would blast.
        do {
            if let volumes = actions.sinkVolumes { try await sound.setSinkVolume(named: entry.sinkName, to: volumes) }
            if let muted = actions.sinkMuted { try await sound.setSinkMute(named: entry.sinkName, to: muted) }
        } catch {
            failures.append("restoring sink \(entry.sinkName): \(error)")
        }
        await rampAll(actions.streams.map { ($0.streamIndex, $0.current, $0.original) })
        for kept in actions.keptUserChanges {
            logger.info("kept a change made during the announcement: \(kept)")
        }
        if failures.isEmpty {
            if clearJournal {
                do { try await journal.clear() } catch { failures.append("clearing the journal: \(error)") }
            }
        } else {
            logger.error("restore incomplete; journal kept for 'herald restore'", metadata: ["errors": "\(failures)"])
        }
        return Restoration(entry: entry, actions: actions, failures: failures)
    }

    /// Ducks a stream that appeared while the safeguard is open, journaling it first.
    private func duckNewStream(index: UInt32) async {
        guard var current = entry, !current.ducks.contains(where: { $0.streamIndex == index }) else { return }
        do {
            guard let stream = try await sound.streams().first(where: { $0.index == index }),
                  let plan = SafeguardPolicy.duckPlan(for: stream, sinkIndex: sinkIndex, settings: settings)
            else { return }
            current.ducks.append(plan)
            try await journal.save(current)
            journaled = true
            entry = current
            await rampAll([(plan.streamIndex, plan.original, plan.ducked)])
            logger.debug("ducked a stream that appeared", metadata: ["stream": "\(index)"])
        } catch {
            logger.warning("could not duck new stream \(index): \(error)")
        }
    }

    /// Moves each stream from one volume to another in a few steps over `rampMilliseconds`.
    /// A stream that vanishes meanwhile is forgotten, not an error.
    private func rampAll(_ moves: [(UInt32, ChannelVolumes, ChannelVolumes)]) async {
        guard !moves.isEmpty else { return }
        let steps = settings.rampMilliseconds >= 30 ? max(1, settings.rampMilliseconds / 25) : 1
        var gone = Set<UInt32>()
        for step in 1...steps {
            if steps > 1 && step > 1 {
                try? await clock.sleep(for: .milliseconds(settings.rampMilliseconds / steps))
            }
            for (index, from, to) in moves where !gone.contains(index) {
                let volumes = SafeguardPolicy.ramp(from: from, to: to, step: step, steps: steps)
                do {
                    try await sound.setStreamVolume(index: index, to: volumes)
                } catch {
                    gone.insert(index)
                    logger.debug("stream \(index) not adjusted (gone?): \(error)")
                }
            }
        }
    }
}

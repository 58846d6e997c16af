import Logging

/// The open/close pair around playback (DESIGN.md "Safeguard rules"): carries out what
/// `SafeguardMachine` decides.
///
/// Every step (open, a stream appearing, a ramp step, close) is one job, and jobs run one at a
/// time in order: each reads the server, asks the machine, and executes its actions before the
/// next job reads anything. So two streams appearing together both get ducked and journaled, and
/// a duck can never land after the close.
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
    private let clock: any Clock<Duration>
    private let logger: Logger
    private var machine: SafeguardMachine
    private var watcher: Task<Void, Never>?
    private var ramper: Task<Void, Never>?
    /// Each step one job: no step reads while another has yet to write.
    private let jobs = SerialJobs()

    public init(sound: any SoundSystem, journal: any RestoreJournal, settings: SafeguardSettings,
                clock: any Clock<Duration>, logger: Logger, processID: Int32) {
        self.sound = sound
        self.journal = journal
        self.clock = clock
        self.logger = logger
        machine = SafeguardMachine(settings: settings, processID: processID)
    }

    /// True between a successful `open` and its `close`.
    public var isOpen: Bool { machine.phase != .closed }

    /// Snapshots `sinkName` and applies the safeguard; returns once the sink is ready to speak on
    /// (the other streams ramp down meanwhile, under the first words).
    public func open(sinkName: String, mute: MutePolicy) async throws -> Opening {
        // Subscribed before the snapshot, so a stream appearing in between is ducked too.
        let events = try await sound.events()
        let opening: Opening = try await serially {
            let sink = try await sound.sink(named: sinkName)
            let streams = try await sound.streams()
            // Not worth failing an announcement for: a journal without it is restored as before.
            let instance = await sound.serverInstance()
            switch machine.open(sink: sink, streams: streams, mute: mute, serverInstance: instance) {
            case .suppressMuted:
                logger.info("sink muted and mute policy is respect: not playing", metadata: ["sink": "\(sinkName)"])
                return .suppressedMuted(sink)
            case .proceed(let actions):
                do {
                    try await execute(actions)
                } catch {
                    logger.error("safeguard open failed, restoring", metadata: ["error": "\(error)"])
                    _ = await restoreNow()
                    throw error
                }
                let entry = machine.entry!
                logger.debug("safeguard open", metadata: [
                    "sink": "\(sink.name)", "unmuted": "\(entry.unmuted)",
                    "raised": "\(entry.setVolumes.map(\.description) ?? "no")", "ducked": "\(entry.ducks.count)",
                ])
                return .opened(before: sink, entry: entry)
            }
        }
        if case .opened = opening {
            startRamp()
            watcher = Task { [weak self] in
                for await event in events {
                    guard let self else { return }
                    switch event {
                    case .streamAppeared(let index): await self.streamAppeared(index: index)
                    case .streamVanished(let index): await self.streamVanished(index: index)
                    case .sinkChanged(let index): await self.sinkChanged(index: index)
                    default: continue
                    }
                }
            }
        }
        return opening
    }

    /// Restores what `open` changed, except what the user changed meanwhile, and clears the journal.
    /// Returns nil when the safeguard was not open.
    public func close() async -> Restoration? {
        watcher?.cancel()
        watcher = nil
        ramper?.cancel()
        ramper = nil
        return await serially { await restoreNow() }
    }

    /// Restores the journal left by a process that died with safeguards open (rule 9): every
    /// sink's entry, each by itself, so a room that cannot be restored now does not hold back the
    /// others. Returns what was restored, empty when nothing was pending.
    /// - Throws: the first sink's failure, after trying every sink; a failed sink's entry is kept
    ///   and applied again when the server is back.
    public func recoverPending() async throws -> [Restoration] {
        try await serially {
            let pending = try await journal.pending()
            guard !pending.isEmpty else { return [] }
            let streams = try await sound.streams()
            // Unknown (a failed request): the journal is restored as after a crash, as before.
            let instance = await sound.serverInstance()
            var restored: [Restoration] = [], firstFailure: (any Error)?
            for entry in pending {
                do {
                    restored.append(try await recover(entry, streams: streams, instance: instance))
                } catch {
                    logger.error("could not restore sink \(entry.sinkName) from the journal; kept for the next try",
                                 metadata: ["error": "\(error)"])
                    firstFailure = firstFailure ?? error
                }
            }
            if let firstFailure { throw firstFailure }
            return restored
        }
    }

    /// Restores one sink's journal entry by rules 7 and 9, then clears it.
    private func recover(_ pending: JournalEntry, streams: [StreamState], instance: UInt32?) async throws -> Restoration {
        logger.notice("restoring a pending journal left by process \(pending.processID)",
                      metadata: ["sink": "\(pending.sinkName)"])
        var sink: SinkState?
        do {
            sink = try await sound.sink(named: pending.sinkName)
        } catch SoundSystemError.noSuchSink {
            logger.warning("sink \(pending.sinkName) is gone; nothing to restore on it")
        }
        let restarted = pending.serverInstance != nil && instance != nil && pending.serverInstance != instance
        if restarted { logger.notice("the sound server started again since the journal was written: its values are not a user's") }
        let actions = RestorePolicy.actions(for: pending, sink: sink, streams: streams,
                                            knowledge: restarted ? .afterServerRestart : .afterCrash)
        if let volumes = actions.sinkVolumes { try await sound.setSinkVolume(named: pending.sinkName, to: volumes) }
        if let muted = actions.sinkMuted { try await sound.setSinkMute(named: pending.sinkName, to: muted) }
        _ = await sound.putBackStreams(of: actions, why: "before the crash", logger: logger)
        try await journal.clear(sinkName: pending.sinkName)
        for kept in actions.keptUserChanges { logger.info("kept a change made after the crash: \(kept)") }
        for duck in actions.awaitedStreams {
            logger.notice("the stream of \(duck.applicationName ?? "a program") Herald had ducked has not come back since the server restarted")
        }
        return Restoration(entry: pending, actions: actions, failures: [])
    }

    // MARK: - Jobs

    private func streamAppeared(index: UInt32) async {
        await serially {
            guard machine.phase == .open else { return }
            do {
                guard let stream = try await sound.streams().first(where: { $0.index == index }) else { return }
                let actions = machine.streamAppeared(stream)
                guard !actions.isEmpty else { return }
                try await execute(actions)
                logger.debug("quieted a stream that appeared", metadata: ["stream": "\(index)"])
                startRamp()
            } catch {
                logger.warning("could not duck new stream \(index): \(error)")
            }
        }
    }

    private func streamVanished(index: UInt32) { machine.streamVanished(index: index) }

    /// The sink changed: a person's volume or mute is journaled (`SafeguardMachine.sinkObserved`).
    private func sinkChanged(index: UInt32) async {
        await serially {
            guard machine.phase == .open, let name = machine.entry?.sinkName,
                  let sink = try? await sound.sink(named: name), sink.index == index else { return }
            let actions = machine.sinkObserved(sink)
            guard !actions.isEmpty else { return }
            do { try await execute(actions) } catch {
                logger.warning("could not journal a change made to sink \(name) during the announcement: \(error)")
            }
        }
    }

    /// Runs the ramp steps in the background until every stream has arrived.
    private func startRamp() {
        guard ramper == nil, machine.isRamping else { return }
        ramper = Task { [weak self] in
            while let self, await self.rampStep() {}
        }
    }

    /// One step of the ramp: waits, observes the user, moves. False when the ramp is over.
    private func rampStep() async -> Bool {
        guard (try? await clock.sleep(for: machine.rampStepDuration)) != nil else { return false }
        return await serially {
            guard machine.phase == .open, machine.isRamping else {
                ramper = nil
                return false
            }
            await stepRamp()
            if !machine.isRamping { ramper = nil }
            return machine.isRamping
        }
    }

    private func stepRamp() async {
        if let streams = try? await sound.streams() { machine.observe(streams) }
        try? await execute(machine.tick())
    }

    /// The close, inside a job: sink first, then the streams ramp back, then the journal is cleared.
    private func restoreNow() async -> Restoration? {
        guard let entry = machine.entry, machine.phase == .open else { return nil }
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
            logger.error("restore failed; the journal is kept and applied when the server is back",
                         metadata: ["errors": "\(failures)"])
            _ = machine.finish()
            return Restoration(entry: entry, actions: RestoreActions(), failures: failures)
        }
        let (actions, restore) = machine.beginClose(sink: sink, streams: streams)
        do {
            try await execute(actions)
            while machine.isRamping {
                try? await clock.sleep(for: machine.rampStepDuration)
                await stepRamp()
            }
        } catch {
            failures.append("restoring sink \(entry.sinkName): \(error)")
        }
        for kept in machine.keptUserChanges { logger.info("kept a change made during the announcement: \(kept)") }
        let finishing = machine.finish()
        if failures.isEmpty {
            do { try await execute(finishing) } catch { failures.append("clearing the journal: \(error)") }
        } else {
            logger.error("restore incomplete; the journal is kept and applied when the server is back",
                         metadata: ["errors": "\(failures)"])
        }
        return Restoration(entry: entry, actions: restore, failures: failures)
    }

    /// Carries out `actions` in order. A stream that vanished meanwhile is forgotten, not an error.
    private func execute(_ actions: [SafeguardMachine.Action]) async throws {
        for action in actions {
            switch action {
            case .saveJournal(let entry): try await journal.save(entry)
            case .clearJournal(let sink): try await journal.clear(sinkName: sink)
            case .setSinkMute(let sink, let muted): try await sound.setSinkMute(named: sink, to: muted)
            case .setSinkVolume(let sink, let volumes): try await sound.setSinkVolume(named: sink, to: volumes)
            case .raiseSink(let sink, let unmute, let volumes):
                let reported = try await sound.raiseSink(named: sink, unmute: unmute, to: volumes)
                try await execute(machine.sinkReported(reported))
            case .setStreamVolume(let index, let volumes):
                do { try await sound.setStreamVolume(index: index, to: volumes) } catch {
                    try rethrowUnlessGone(error, index: index)
                }
            case .setStreamMute(let index, let muted):
                do { try await sound.setStreamMute(index: index, to: muted) } catch {
                    try rethrowUnlessGone(error, index: index)
                }
            }
        }
    }

    private func rethrowUnlessGone(_ error: any Error, index: UInt32) throws {
        if case SoundSystemError.operationFailed = error {
            logger.debug("stream \(index) not adjusted (gone?): \(error)")
            machine.streamVanished(index: index)
            return
        }
        throw error
    }

    /// Runs `body` when every earlier job has finished: one job at a time, in order of arrival.
    private func serially<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        try await jobs.serially(body)
    }
}

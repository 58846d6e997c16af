/// The safeguard as a state machine (DESIGN.md "Safeguard rules"): it takes what the sound server
/// shows and returns the actions to carry out, in order, with no I/O and no `await` of its own.
///
/// The `Safeguard` actor reads the server, feeds this machine, and executes the actions one job
/// at a time, so no decision is ever made on a value read before another decision's await.
public struct SafeguardMachine: Sendable {
    /// One change to the sound server or the journal, to be executed in order.
    public enum Action: Sendable, Equatable {
        /// Persist (and sync) the journal before any change it covers.
        case saveJournal(JournalEntry)
        case setStreamVolume(index: UInt32, ChannelVolumes)
        case setStreamMute(index: UInt32, Bool)
        case setSinkMute(sink: String, Bool)
        case setSinkVolume(sink: String, ChannelVolumes)
        /// Unmute (when `unmute`) and raise to `volumes` (when given), then read the sink back and
        /// report it with `sinkReported`: devices round volumes.
        case raiseSink(sink: String, unmute: Bool, volumes: ChannelVolumes?)
        /// Forget this sink's journal entry: everything on it is restored.
        case clearJournal(sink: String)
    }

    /// What `open` decided.
    public enum Opening: Sendable, Equatable {
        /// Muted, and the priority's mute policy is `respect`: nothing to change, do not play.
        case suppressMuted
        /// Execute these actions, then play.
        case proceed([Action])
    }

    public enum Phase: Sendable, Equatable { case closed, open, closing }

    /// A ducked stream's progress: the last volume Herald set, and the ramp it is on.
    struct Track: Sendable {
        var lastSet: ChannelVolumes
        var ramp: (from: ChannelVolumes, to: ChannelVolumes, step: Int)?
    }

    public let settings: SafeguardSettings
    public let processID: Int32
    public private(set) var phase: Phase = .closed
    /// The journal as it stands: what `close` restores.
    public private(set) var entry: JournalEntry?
    /// True once something changed, so the journal holds a row to clear.
    public private(set) var journaled = false
    private var sinkIndex: UInt32 = 0
    private var sinkRatio: Double = 1
    private var silent = false
    private var tracks: [UInt32: Track] = [:]
    /// Values a user set under Herald, kept and logged.
    public private(set) var keptUserChanges: [String] = []

    public init(settings: SafeguardSettings, processID: Int32) {
        self.settings = settings
        self.processID = processID
    }

    /// Steps in a ramp: one per 25 ms, at least one.
    public var rampSteps: Int { settings.rampMilliseconds >= 30 ? max(1, settings.rampMilliseconds / 25) : 1 }
    /// The pause between two ramp steps.
    public var rampStepDuration: Duration { .milliseconds(settings.rampMilliseconds / rampSteps) }
    /// True while a stream is still moving towards its ducked or its own volume.
    public var isRamping: Bool { tracks.values.contains { $0.ramp != nil } }

    /// Whether `sink`, as read now, is still as this open safeguard left it for speech
    /// (`JournalEntry.isStillReady`); false when closed.
    public func isStillReady(_ sink: SinkState) -> Bool {
        guard phase == .open, let entry else { return false }
        return entry.isStillReady(sink)
    }

    /// Decides what to change on `sink`, with `streams` as the server shows them, before speaking.
    ///
    /// Order (rule 5): journal; streams set so they are heard exactly as before the raise (or muted,
    /// when nothing was heard); then unmute and raise; the ramp down runs while speaking (`tick`).
    /// - Parameter serverInstance: the run of the server `sink` is on, journaled with the changes.
    public mutating func open(sink: SinkState, streams: [StreamState], mute: MutePolicy, serverInstance: UInt32? = nil) -> Opening {
        precondition(phase == .closed, "SafeguardMachine.open while \(phase)")
        if sink.muted && mute == .respect { return .suppressMuted }
        let raiseTo = SafeguardPolicy.raisedVolumes(sink.volumes, settings: settings)
        sinkIndex = sink.index
        silent = sink.muted || sink.volumes.loudest.raw == 0
        sinkRatio = raiseTo.map { Double(sink.volumes.loudest.raw) / Double(max(1, $0.loudest.raw)) } ?? 1
        var current = JournalEntry(sinkName: sink.name, originalVolumes: sink.volumes, originalMuted: sink.muted,
                                   setVolumes: raiseTo, unmuted: sink.muted, ducks: [], processID: processID)
        current.serverInstance = serverInstance
        var streamActions: [Action] = []
        for stream in streams {
            guard let plan = plan(for: stream) else { continue }
            current.ducks.append(plan)
            streamActions += hold(plan)
        }
        // Ducks with no ramp to run are at their ducked volume at once.
        if !current.ducks.isEmpty { current.streamsSettled = !isRamping }
        entry = current
        phase = .open
        keptUserChanges = []
        var actions = streamActions
        if sink.muted || raiseTo != nil { actions.append(.raiseSink(sink: sink.name, unmute: sink.muted, volumes: raiseTo)) }
        // Nothing to change, nothing to journal: a synced write is the slowest step of an open.
        guard !actions.isEmpty || !current.ducks.isEmpty else { return .proceed([]) }
        journaled = true
        return .proceed([.saveJournal(current)] + actions)
    }

    /// A stream appeared while open: it is quieted like the others, journaled first.
    /// Returns nothing when closed, already known, or not on the sink.
    public mutating func streamAppeared(_ stream: StreamState) -> [Action] {
        guard phase == .open, var current = entry, tracks[stream.index] == nil,
              !current.ducks.contains(where: { $0.streamIndex == stream.index }),
              let plan = plan(for: stream) else { return [] }
        current.ducks.append(plan)
        // Its ramp down starts: values on the way are Herald's until it is over.
        current.streamsSettled = false
        entry = current
        journaled = true
        return [.saveJournal(current)] + hold(plan)
    }

    /// A stream that vanished is forgotten.
    public mutating func streamVanished(index: UInt32) {
        tracks[index] = nil
        entry?.ducks.removeAll { $0.streamIndex == index }
    }

    /// The sink as it reported itself after the raise: what restore compares with.
    public mutating func sinkReported(_ sink: SinkState) -> [Action] {
        guard phase == .open, var current = entry, current.setVolumes != nil,
              current.setVolumes != sink.volumes else { return [] }
        current.setVolumes = sink.volumes
        entry = current
        return [.saveJournal(current)]
    }

    /// The sink as read after a change event while open: a volume or mute that is not what Herald
    /// set (or left) is a person's, journaled so a server back at its defaults gets it back.
    public mutating func sinkObserved(_ sink: SinkState) -> [Action] {
        // A sink Herald left as it was is not its business, nor its journal's.
        guard phase == .open, var current = entry, sink.name == current.sinkName,
              current.setVolumes != nil || current.unmuted else { return [] }
        let heraldVolumes = current.setVolumes ?? current.originalVolumes
        let heraldMuted = current.unmuted ? false : current.originalMuted
        if sink.volumes != heraldVolumes || current.userVolumes != nil { current.userVolumes = sink.volumes }
        if sink.muted != heraldMuted || current.userMuted != nil { current.userMuted = sink.muted }
        guard current.userVolumes != entry?.userVolumes || current.userMuted != entry?.userMuted else { return [] }
        entry = current
        journaled = true
        return [.saveJournal(current)]
    }

    /// Compares the streams on a ramp with what Herald last set: a value that changed otherwise
    /// is the user's, and its ramp stops (it is kept at close too).
    public mutating func observe(_ streams: [StreamState]) {
        let byIndex = Dictionary(streams.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
        for (index, track) in tracks where track.ramp != nil {
            guard let stream = byIndex[index] else { continue }
            if stream.volumes != track.lastSet {
                tracks[index] = nil
                let name = stream.applicationName ?? "#\(index)"
                keptUserChanges.append("stream \(name) set to \(stream.volumes) during a ramp")
            }
        }
    }

    /// One ramp step for every stream still moving.
    public mutating func tick() -> [Action] {
        var actions: [Action] = []
        for index in tracks.keys.sorted() {
            guard var track = tracks[index], let ramp = track.ramp else { continue }
            let step = ramp.step + 1
            let volumes = SafeguardPolicy.ramp(from: ramp.from, to: ramp.to, step: step, steps: rampSteps)
            track.lastSet = volumes
            track.ramp = step >= rampSteps ? nil : (ramp.from, ramp.to, step)
            tracks[index] = track
            actions.append(.setStreamVolume(index: index, volumes))
        }
        // Every stream at its ducked volume (or left to its user): journaled after the last step,
        // so a crash before it still reads as ramps running.
        if phase == .open, !isRamping, var current = entry, !current.ducks.isEmpty, current.streamsSettled != true {
            current.streamsSettled = true
            entry = current
            actions.append(.saveJournal(current))
        }
        return actions
    }

    /// Starts the close: the sink first (volume, then mute), then the streams Herald muted; the
    /// ducked ones ramp back up with `tick` (observing the user as on the way down), then `finish`.
    /// Returns the actions and, for the log, the whole restore decision.
    public mutating func beginClose(sink: SinkState?, streams: [StreamState]) -> (actions: [Action], restore: RestoreActions) {
        guard phase == .open, var current = entry else { return ([], RestoreActions()) }
        phase = .closing
        let lastSet = tracks.mapValues(\.lastSet)
        let restore = RestorePolicy.actions(for: current, sink: sink, streams: streams, knowledge: .exact(lastSet: lastSet))
        keptUserChanges += restore.keptUserChanges
        var actions: [Action] = []
        if current.streamsSettled == true, !restore.streams.isEmpty {
            // The ramps back start: from here a crash may leave a stream anywhere on the way.
            current.streamsSettled = false
            entry = current
            actions.append(.saveJournal(current))
        }
        if let volumes = restore.sinkVolumes { actions.append(.setSinkVolume(sink: current.sinkName, volumes)) }
        if let muted = restore.sinkMuted { actions.append(.setSinkMute(sink: current.sinkName, muted)) }
        actions += restore.unmuteStreams.map { .setStreamMute(index: $0, false) }
        tracks = [:]
        for stream in restore.streams {
            tracks[stream.streamIndex] = Track(lastSet: stream.current, ramp: (stream.current, stream.original, 0))
        }
        return (actions, restore)
    }

    /// Ends the close once the ramps are done; clears the journal when one was written.
    public mutating func finish() -> [Action] {
        guard phase != .closed else { return [] }
        let wasJournaled = journaled
        let sinkName = entry?.sinkName ?? ""
        phase = .closed
        entry = nil
        journaled = false
        tracks = [:]
        return wasJournaled ? [.clearJournal(sink: sinkName)] : []
    }

    private func plan(for stream: StreamState) -> DuckPlan? {
        SafeguardPolicy.duckPlan(for: stream, sinkIndex: sinkIndex, sinkRatio: sinkRatio, silent: silent,
                                 settings: settings)
    }

    /// Sets `plan`'s stream to be heard as before, and starts its ramp down.
    private mutating func hold(_ plan: DuckPlan) -> [Action] {
        if plan.silenced { return [.setStreamMute(index: plan.streamIndex, true)] }
        var actions: [Action] = []
        if plan.held != plan.original { actions.append(.setStreamVolume(index: plan.streamIndex, plan.held)) }
        tracks[plan.streamIndex] = Track(lastSet: plan.held,
                                         ramp: plan.ducked == plan.held ? nil : (plan.held, plan.ducked, 0))
        return actions
    }
}

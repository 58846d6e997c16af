import HeraldCore

/// The safeguard held open, with the process lock, across one or more back-to-back
/// announcements (DESIGN.md rule 8: no pumping the volume between them).
public final class SafeguardSession: Sendable {
    public enum Opening: Sendable {
        /// Muted, and the mute policy is `respect`: nothing changed, nothing to play.
        case suppressedMuted(SinkState)
        case opened(SafeguardSession)
    }

    public let sound: any SoundConnection
    public let sinkName: String
    /// The sink as it was before the safeguard changed it.
    public let before: SinkState
    public let entry: JournalEntry
    /// The quiet-hours target it was opened with, if any: a louder announcement needs another session.
    public let quietTarget: Volume?
    /// The settings it was opened with: its journal is the one a failed close retries, even
    /// after a reload moved the state folder or the database.
    public let context: HeraldContext
    let safeguard: Safeguard
    let lock: ProcessLock

    private init(context: HeraldContext, sound: any SoundConnection, sinkName: String, before: SinkState, entry: JournalEntry,
                 quietTarget: Volume?, safeguard: Safeguard, lock: ProcessLock) {
        self.context = context
        self.quietTarget = quietTarget
        self.sound = sound
        self.sinkName = sinkName
        self.before = before
        self.entry = entry
        self.safeguard = safeguard
        self.lock = lock
    }

    /// Takes the lock, restores any journal a dead process left, and opens the safeguard on the
    /// target sink with the mute policy of `priority` (critical always overrides).
    /// - Parameter quietTarget: quiet hours' `play_quieter` target volume, if it applies.
    public static func open(context: HeraldContext, sound: any SoundConnection, priority: Priority,
                            quietTarget: Volume? = nil, lockTimeout: Duration) async throws -> Opening {
        let lock = try await ProcessLock.acquire(path: context.lockPath, timeout: lockTimeout)
        do {
            let safeguard = context.safeguard(on: sound, quietTarget: quietTarget)
            try await context.recoverPendingJournal(with: safeguard, on: sound)
            let sinkName = try await context.targetSinkName(on: sound)
            let mute = context.configuration.priorities.mutePolicy(
                for: priority, fallback: context.configuration.safeguard.mutePolicy)
            switch try await safeguard.open(sinkName: sinkName, mute: mute) {
            case .suppressedMuted(let sink):
                lock.release()
                return .suppressedMuted(sink)
            case .opened(let before, let entry):
                HeraldMetrics.opened(entry)
                return .opened(SafeguardSession(context: context, sound: sound, sinkName: sinkName, before: before, entry: entry,
                                                quietTarget: quietTarget, safeguard: safeguard, lock: lock))
            }
        } catch {
            lock.release()
            throw error
        }
    }

    /// The lead-in this session's first sound needs.
    public func leadIn(_ settings: SafeguardSettings) -> Int { settings.leadIn(for: before) }

    /// Restores the sink and the streams and releases the lock. Returns what could not be restored.
    public func close() async -> Safeguard.Restoration? {
        let restoration = await safeguard.close()
        lock.release()
        if let restoration { HeraldMetrics.restored(restoration, replayingJournal: false) }
        return restoration
    }
}

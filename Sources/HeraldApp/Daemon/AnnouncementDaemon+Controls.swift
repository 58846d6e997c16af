import Foundation
import HeraldCore

/// Admin controls (skip, pause, resume) and the status snapshot.
extension AnnouncementDaemon {
    /// What `/v1/status` shows: the current announcement, the queue, the sound server.
    public func snapshot() async -> Snapshot {
        let sound: String = switch await connector.state {
        case .connecting: "connecting"
        case .connected(let server): "connected to \(server)"
        case .waiting(let reason, _): "waiting for a sound server: \(reason)"
        }
        var current = machine.turns.current?.entry.item.record
        if let length = playing?.durationMilliseconds { current?.durationMilliseconds = length }
        return Snapshot(current: current, currentStartedAt: playing?.startedAt,
                        currentElapsedMilliseconds: playing.map { Int(now().timeIntervalSince($0.startedAt) * 1000) },
                        currentSink: playing?.sinks.first, currentSinks: playing?.sinks,
                        queueDepth: Dictionary(uniqueKeysWithValues: machine.turns.queue.depth.map { ($0.key.rawValue, $0.value) }),
                        safeguardOpen: session != nil, uptimeSeconds: Int(now().timeIntervalSince(startedAt)),
                        paused: machine.turns.paused, soundServer: sound, waitingFor: machine.turns.waitingFor,
                        deferred: machine.turns.deferredCount, waitingForSpeakers: machine.turns.awaitingSpeakers.count)
    }

    /// Stops the current announcement (fading it) and moves on; false when nothing plays.
    public func skipCurrent() -> Bool {
        guard machine.turns.stopCurrent(.skip) else { return false }
        playing?.cancel()
        return true
    }

    /// Pauses the announcement playing now (the sink stays safeguarded); false when none plays.
    public func pauseCurrent() -> Bool {
        guard playing != nil, let session else { return false }
        return session.sound.setPlaybackPaused(true)
    }

    /// Resumes a paused announcement where it stopped.
    public func resumeCurrent() -> Bool {
        guard playing != nil, let session else { return false }
        return session.sound.setPlaybackPaused(false)
    }

    /// Holds the queue after the current announcement; `resume()` goes on.
    public func pause() {
        machine.turns.pause()
        changes.signal()
    }

    public func resume() {
        machine.turns.resume()
        wake.yield()
        changes.signal()
    }

    /// The daemon's live connection, for status reports; nil while it waits for a server.
    public var soundSystem: (any SoundSystem)? { get async { try? await connector.current() } }

    /// The id of the last announcement that played, for replay-last.
    public var lastPlayed: String? { lastPlayedID }

    /// Stops entry `id` if it is still the one playing (a late watcher must not stop the next).
    func stopCurrent(_ reason: QueueMachine<Queued>.StopReason, id: String) {
        guard machine.turns.current?.entry.id == id else { return }
        if machine.turns.stopCurrent(reason) { playing?.cancel() }
    }
}

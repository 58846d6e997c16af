import HeraldCore
import Logging

/// After the sound server restarted under an announcement, the streams Herald had ducked come
/// back only when their applications reconnect, and the server's stream-restore then gives them
/// the volume or mute Herald had set (a radio left muted, found by the soak). This watches for
/// them for a while and puts each back as `RestorePolicy.returningStreams` decides, holding the
/// safeguard lock for each look so no announcement's own duck is open meanwhile.
///
/// What it waits for lives in this process only: a daemon killed during the window forgets it.
struct ReturningStreams: Sendable {
    /// How long an application has to come back. A player reconnects within seconds of the
    /// server; one started by hand much later is not waited for.
    static let window: Duration = .seconds(300)

    let sound: any SoundSystem
    let lockPath: String
    let logger: Logger

    /// Puts back each of `ducks` whose application's stream appears within `window`; returns
    /// when all are back, the window has passed, or the server's events end.
    func watch(_ ducks: [DuckPlan], window: Duration = Self.window) async {
        guard !ducks.isEmpty, let events = try? await sound.events() else { return }
        let deadline = ContinuousClock.now + window
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var awaited = await look(for: ducks, until: deadline)
                guard !awaited.isEmpty else { return }
                for await event in events {
                    guard case .streamAppeared = event else { continue }
                    awaited = await look(for: awaited, until: deadline)
                    if awaited.isEmpty { return }
                }
            }
            group.addTask { try? await Task.sleep(until: deadline) }
            // Whichever ends first ends the watch: the window, or every stream back.
            await group.next()
            group.cancelAll()
        }
    }

    /// One look at the streams under the lock; returns the ducks still not back.
    private func look(for awaited: [DuckPlan], until deadline: ContinuousClock.Instant) async -> [DuckPlan] {
        guard !awaited.isEmpty else { return [] }
        let lock: ProcessLock
        do {
            lock = try await ProcessLock.acquire(path: lockPath, timeout: max(.zero, deadline - .now))
        } catch {
            if !Task.isCancelled { logger.warning("streams Herald ducked before the server restarted are not put back: \(error)") }
            return []
        }
        defer { lock.release() }
        guard let streams = try? await sound.streams() else { return awaited }
        let actions = RestorePolicy.returningStreams(awaited, among: streams)
        for index in actions.unmuteStreams { try? await sound.setStreamMute(index: index, to: false) }
        for stream in actions.streams { try? await sound.setStreamVolume(index: stream.streamIndex, to: stream.original) }
        let back = awaited.count - actions.awaitedStreams.count
        if back > 0 {
            logger.notice("put back \(back) stream(s) Herald had ducked before the server restarted, as they came back")
        }
        for kept in actions.keptUserChanges { logger.info("kept a stream's value after the server restarted: \(kept)") }
        return actions.awaitedStreams
    }
}

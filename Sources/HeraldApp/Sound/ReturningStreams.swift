import HeraldCore
import Logging

/// After the sound server restarted under an announcement, the streams Herald had ducked come
/// back only when their applications reconnect, and the server's stream-restore then gives them
/// the volume or mute Herald had set (a radio left muted, found by the soak). This watches for
/// them for a while and puts each back as `RestorePolicy.returningStreams` decides, holding the
/// safeguard lock for each look so no announcement's own duck is open meanwhile. Each stream is
/// looked at once, the first time it is seen: a value the user gives it later is theirs.
///
/// What it waits for lives in this process only: the daemon runs it; a daemon killed during the
/// window forgets it, and a stream not back by then keeps what stream-restore saved (logged).
struct ReturningStreams: Sendable {
    /// How long an application has to come back. A player reconnects within seconds of the
    /// server; one started by hand much later is not waited for.
    static let window: Duration = .seconds(300)

    let sound: any SoundSystem
    let lockPath: String
    let logger: Logger

    /// Puts back each of `ducks` whose application's stream appears within `window`; `seen` are
    /// the streams the recovery already looked at. Returns when all are back, the window has
    /// passed, or the server's events end.
    func watch(_ ducks: [DuckPlan], seen: Set<UInt32>, window: Duration = Self.window) async {
        guard !ducks.isEmpty else { return }
        guard let events = try? await sound.events() else {
            return gaveUp(ducks, because: "the sound server's events cannot be followed")
        }
        let deadline = ContinuousClock.now + window
        let left = await withTaskGroup(of: [DuckPlan]?.self) { group in
            group.addTask {
                var awaited = ducks, seen = seen
                await look(for: &awaited, seen: &seen, until: deadline)
                for await event in events where !awaited.isEmpty && !Task.isCancelled {
                    guard case .streamAppeared = event else { continue }
                    await look(for: &awaited, seen: &seen, until: deadline)
                    if awaited.isEmpty { break }
                }
                return awaited
            }
            group.addTask {
                try? await Task.sleep(until: deadline)
                return nil
            }
            // Whichever ends first ends the watch: the window, or the looks (all back, or the
            // connection gone); the looks then say what was still awaited.
            var left: [DuckPlan] = []
            while let result = await group.next() {
                group.cancelAll()
                if let result { left = result }
            }
            return left
        }
        if !left.isEmpty { gaveUp(left, because: "not back within \(window)") }
    }

    private func gaveUp(_ ducks: [DuckPlan], because reason: String) {
        let names = ducks.map { $0.applicationName ?? "#\($0.streamIndex)" }.joined(separator: ", ")
        logger.warning("stopped waiting for streams Herald had ducked before the server restarted (\(reason)): \(names); they come back as the server saved them, ducked or muted")
    }

    /// One look at the streams not seen before, under the lock; removes the ducks found back.
    private func look(for awaited: inout [DuckPlan], seen: inout Set<UInt32>, until deadline: ContinuousClock.Instant) async {
        let lock: ProcessLock
        do {
            lock = try await ProcessLock.acquire(path: lockPath, timeout: max(.zero, deadline - .now))
        } catch {
            if !Task.isCancelled { logger.warning("cannot look for the streams Herald ducked before the server restarted: \(error)") }
            return
        }
        defer { lock.release() }
        let streams: [StreamState]
        do { streams = try await sound.streams() } catch {
            return logger.warning("cannot list the streams to find those Herald ducked before the server restarted: \(error)")
        }
        let actions = RestorePolicy.returningStreams(awaited, among: streams.filter { !seen.contains($0.index) })
        seen.formUnion(streams.map(\.index))
        let putBack = await sound.putBackStreams(of: actions, why: "before the server restarted", logger: logger)
        if putBack > 0 { logger.notice("put back \(putBack) stream(s) Herald had ducked before the server restarted, as they came back") }
        for kept in actions.keptUserChanges { logger.info("after the server restarted: \(kept)") }
        awaited = actions.awaitedStreams
    }
}

import CPulse
import HeraldCore

extension PulseConnection {
    /// Plays `clip` on `sinkName` and returns once the server has played it to the end.
    ///
    /// The stream carries `application.name=Herald` (from the context) and `media.role`.
    /// Cancelling the calling task fades the stream out over `fadeMilliseconds` and stops it.
    public func play(_ audio: AudioSource, onSink sinkName: String, mediaRole: String,
                     fadeMilliseconds: Int = 150) async throws -> PlaybackReport {
        let playback = PulsePlayback(lock: lock)
        withLock { activePlayback = playback }
        defer { withLock { if activePlayback === playback { activePlayback = nil } } }
        let watchdog = Task { [weak self] in
            // A finished clip has a known length; a stream gets a generous bound. Time spent
            // paused does not count.
            let limit = Duration.milliseconds(audio.knownDurationMilliseconds ?? 60_000) + (self?.requestTimeout ?? .zero) + .seconds(2)
            let started = ContinuousClock.now
            while let self {
                let deadline = started + limit + self.withLock { playback.pausedSoFar }
                if ContinuousClock.now >= deadline {
                    self.withLock { playback.finish(.timedOut("playback did not finish within \(limit)")) }
                    return
                }
                guard (try? await Task.sleep(until: deadline)) != nil else { return }
            }
        }
        defer { watchdog.cancel() }
        var feeder: Task<Void, Never>?
        defer { feeder?.cancel() }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    withLock {
                        playback.start(continuation, context: context, format: audio.format, sinkName: sinkName,
                                       mediaRole: mediaRole,
                                       warm: borrowWarmStream(sinkName: sinkName, format: audio.format))
                        switch audio {
                        case .clip(let clip):
                            playback.append(clip.samples)
                            playback.finishInput()
                        case .stream(_, let chunks):
                            feeder = Task { [weak self] in
                                do {
                                    for try await chunk in chunks { self?.withLock { playback.append(chunk) } }
                                    self?.withLock { playback.finishInput() }
                                } catch {
                                    self?.withLock { playback.finish(.operationFailed("audio source failed: \(error)")) }
                                }
                            }
                        }
                    }
                }
            } onCancel: {
                // In a task of its own: the runtime calls this handler holding the cancelled task's
                // status lock, and the mainloop thread, holding the mainloop lock, may be resuming
                // the continuation (which takes that status lock): locking here would deadlock.
                // Not started yet: `start` sees the flag and never starts. Connecting: stop at once,
                // so the clip is never played. Playing: fade out first.
                playback.cancelRequested.store(true, ordering: .releasing)
                Task {
                    if let index = self.withLock({ playback.beginFadeOut() }) {
                        await self.fadeAndStop(playback, index: index, milliseconds: fadeMilliseconds)
                    }
                }
            }
        } catch {
            withLock { playback.tearDown() }
            throw error
        }
        // Wait out what the sink holds rendered ahead; a restore before that would cut the end.
        if let end = withLock({ playback.stoppedEarly ? nil : playback.endHeardAt }), end > .now {
            let waited: Void? = try? await Task.sleep(until: end)
            if waited == nil { withLock { playback.stopNow() } }
        }
        if let lost = withLock({ playback.lostAfterFinish }) {
            withLock { playback.tearDown() }
            throw lost
        }
        let report = withLock {
            playback.tearDown()
            return PlaybackReport(
                startMilliseconds: playback.startedAt.map { ($0 - playback.requestedAt).inMilliseconds } ?? -1,
                totalMilliseconds: (ContinuousClock.now - playback.requestedAt).inMilliseconds,
                stoppedEarly: playback.stoppedEarly, onWarmStream: playback.warm != nil)
        }
        return report
    }

    /// Pauses or resumes what this connection is playing; false when nothing plays.
    public func setPlaybackPaused(_ paused: Bool) -> Bool {
        withLock { activePlayback?.setPaused(paused) ?? false }
    }

    /// Lowers the stream to silence in steps, then flushes it.
    private func fadeAndStop(_ playback: PulsePlayback, index: UInt32, milliseconds: Int) async {
        if let volumes = try? await sinkInputs().first(where: { $0.index == index })?.volumes {
            let steps = max(1, milliseconds / 25)
            for step in 1...steps {
                // Torn down meanwhile (the clip ended): the stream is no longer this playback's.
                guard withLock({ playback.streamIndex }) == index else { break }
                let level = volumes.scaled(by: 1 - Double(step) / Double(steps))
                try? await setSinkInputVolume(index: index, to: level)
                try? await Task.sleep(for: .milliseconds(milliseconds / steps))
            }
        }
        withLock { playback.stopNow() }
    }
}

import Foundation
import CPulse
import HeraldCore

extension PulseConnection {
    /// Plays `audio` on `sinkName` and returns once the server has played it to the end.
    ///
    /// The stream carries `application.name=Herald` (from the context) and `media.role`.
    /// Cancelling the calling task fades the stream out over `fadeMilliseconds` and stops it.
    public func play(_ audio: AudioSource, onSink sinkName: String, mediaRole: String,
                     fadeMilliseconds: Int = 150) async throws -> PlaybackReport {
        try await play(audio, onSinks: [sinkName], mediaRole: mediaRole, fadeMilliseconds: fadeMilliseconds)[0].get()
    }

    /// Tells `room` `nearEndLead` before the playback's last sound can be heard, once all its
    /// input is written. Not at the drain, which comes at once for a clip (the large buffer) and
    /// as late as the stream's end for speech; not once the end was waited out either: a kill in
    /// between (where the said mark used to be written) found no mark and said it again.
    private func tellNearEnd(of playback: PulsePlayback, to room: EndWatch.Room) async {
        while !Task.isCancelled {
            let (stopped, paused, nearEnd) = withLock {
                (playback.stoppedEarly, playback.isPaused,
                 playback.allWritten ? playback.earliestEnd.map { $0 - playback.quietTail - Self.nearEndLead } : nil)
            }
            if stopped { return }
            if let nearEnd, nearEnd > .now {
                // Looked at again after the wait: a pause meanwhile moves the end later.
                guard (try? await Task.sleep(until: nearEnd)) != nil else { return }
            } else if let nearEnd, !paused, nearEnd <= .now {
                room.report(whole: true)
                return
            } else {
                // Still being written (a sentence still being made), not started, or paused.
                guard (try? await Task.sleep(for: .milliseconds(10))) != nil else { return }
            }
        }
    }

    /// How long before its last sound (the last sample above -50 dBFS) `nearEnd` is called: more
    /// than a sink renders ahead of its clock (a null sink's monitor carries the sound about 10 ms
    /// before the time it is due), a synced write of the said mark (0.2 ms here, a few ms on an
    /// SD card) and a timer's lateness. A kill in this last stretch cuts at most this much of the
    /// sound (its fading end), and the announcement is not said again.
    static let nearEndLead = Duration.milliseconds(15)

    /// How long the rooms of one announcement wait for a slow one before the others start.
    static let gateTimeout = Duration.milliseconds(500)

    /// Plays `audio` on every sink of `sinkNames` in step: with more than one, each stream connects
    /// corked and, once each holds its first samples, each is uncorked so that all are heard at
    /// once (`PlaybackGate`, `LatencyAlignment`).
    /// One result per sink, in order: a sink that fails costs the others nothing.
    /// Cancelling the calling task fades every stream out and stops it.
    /// `nearEnd` (see `SoundSystem`) is called `nearEndLead` before the last sink's last sound.
    /// `latencyOffsets` (by sink) adds to a sink's reported latency the delay from it to its
    /// listener that it does not report; the rooms are aligned on the sum.
    public func play(_ audio: AudioSource, onSinks sinkNames: [String], mediaRole: String,
                     fadeMilliseconds: Int = 150, latencyOffsets: [String: Duration] = [:],
                     nearEnd: (@Sendable (_ whole: Bool) -> Void)? = nil) async -> [Result<PlaybackReport, any Error>] {
        let gate = sinkNames.count > 1 ? PlaybackGate(members: sinkNames.count) : nil
        let ends = nearEnd.map { EndWatch(members: sinkNames.count, nearEnd: $0) }
        gate?.firstArrived = { [weak self, weak gate] in
            gate?.timer = Task { [weak self] in
                guard (try? await Task.sleep(for: Self.gateTimeout)) != nil else { return }
                self?.withLock { gate?.open() }
            }
        }
        defer { withLock { gate?.timer?.cancel() } }
        let playbacks = sinkNames.map { sinkName in
            let playback = PulsePlayback(lock: lock)
            playback.gate = gate
            playback.latencyOffset = latencyOffsets[sinkName] ?? .zero
            playback.startDelays = startDelays
            playback.inputBytesPerSecond = Double(audio.format.sampleRate * audio.format.channelCount * MemoryLayout<Float>.size)
            return playback
        }
        withLock {
            activePlaybacks += playbacks
            // A clip is given to every room before its stream starts: written as soon as each connects.
            if case .clip(let clip) = audio {
                for playback in playbacks {
                    playback.append(clip.samples)
                    playback.finishInput()
                }
            }
        }
        defer { withLock { activePlaybacks.removeAll { active in playbacks.contains { $0 === active } } } }
        // A stream is read once, and each chunk goes to every room.
        var feeder: Task<Void, Never>?
        if case .stream(_, let chunks) = audio {
            feeder = Task { [weak self] in
                do {
                    for try await chunk in chunks { self?.withLock { for playback in playbacks { playback.append(chunk) } } }
                    self?.withLock { for playback in playbacks { playback.finishInput() } }
                } catch {
                    self?.withLock { for playback in playbacks { playback.finish(.operationFailed("audio source failed: \(error)")) } }
                }
            }
        }
        defer { feeder?.cancel() }
        return await withTaskGroup(of: (Int, Result<PlaybackReport, any Error>).self) { group in
            for (index, (playback, sinkName)) in zip(playbacks, sinkNames).enumerated() {
                group.addTask {
                    (index, await Result(catchingAsync: {
                        try await self.run(playback, format: audio.format, sinkName: sinkName, mediaRole: mediaRole,
                                           fadeMilliseconds: fadeMilliseconds, ends: ends)
                    }))
                }
            }
            var results = [Result<PlaybackReport, any Error>](repeating: .failure(CancellationError()), count: sinkNames.count)
            for await (index, result) in group { results[index] = result }
            return results
        }
    }

    /// One sink's stream, from its start to the last sample heard; its input is given by the caller.
    private func run(_ playback: PulsePlayback, format: AudioFormat, sinkName: String, mediaRole: String,
                     fadeMilliseconds: Int, ends: EndWatch?) async throws -> PlaybackReport {
        let room = ends.map(EndWatch.Room.init)
        let nearEnd = room.map { room in Task { [weak self] in await self?.tellNearEnd(of: playback, to: room) } }
        // Every way out that did not come near the end counts as not heard whole.
        defer {
            nearEnd?.cancel()
            room?.report(whole: false)
        }
        let watchdog = Task { [weak self] in
            // The end is due once the audio received so far has had time to play (each part from
            // when it came, or from the end of the one before), plus a margin: a sentence of any
            // length plays to its end, and a stream the server stopped playing fails a margin
            // after its audio. A producer still to send its first part gets a minute (a cold
            // synthesizer); one between two parts, 30 s more (the next clause being made). Time
            // spent paused does not count. (A fixed 60 s bound failed a 1,500-character sentence.)
            let margin = (self?.requestTimeout ?? .zero) + .seconds(2)
            let started = ContinuousClock.now
            while let self {
                let (expectedEnd, ended, paused) = self.withLock { (playback.expectedInputEnd, playback.inputEnded, playback.pausedSoFar) }
                var deadline = (expectedEnd ?? started + .seconds(60)) + margin + paused
                if expectedEnd != nil && !ended { deadline += .seconds(30) }
                if ContinuousClock.now >= deadline {
                    let heard = (expectedEnd ?? started) - started
                    self.withLock { playback.finish(.timedOut("playback did not end \(margin) after the \(heard) its audio needed")) }
                    return
                }
                guard (try? await Task.sleep(until: deadline)) != nil else { return }
            }
        }
        defer { watchdog.cancel() }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    withLock {
                        playback.start(continuation, context: context, format: format, sinkName: sinkName, mediaRole: mediaRole,
                                       warm: borrowWarmStream(sinkName: sinkName, format: format))
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
        if withLock({ !playback.stoppedEarly }) { room?.report(whole: true) }
        if let lost = withLock({ playback.lostAfterFinish }) {
            withLock { playback.tearDown() }
            throw lost
        }
        return withLock {
            playback.tearDown()
            return PlaybackReport(
                startMilliseconds: (playback.heardAt ?? playback.startedAt).map { ($0 - playback.requestedAt).inMilliseconds } ?? -1,
                totalMilliseconds: (ContinuousClock.now - playback.requestedAt).inMilliseconds,
                stoppedEarly: playback.stoppedEarly, onWarmStream: playback.warm != nil)
        }
    }

    /// Pauses or resumes what this connection is playing; false when nothing plays.
    public func setPlaybackPaused(_ paused: Bool) -> Bool {
        withLock { activePlaybacks.map { $0.setPaused(paused) }.contains(true) }
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

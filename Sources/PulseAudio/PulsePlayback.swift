import CPulse
import HeraldCore
import Synchronization

/// One playback stream, from connect to drain (or fade and stop).
///
/// `@unchecked Sendable`: every field is touched with the connection's mainloop lock held, or from
/// the mainloop thread inside a stream callback. The object outlives its stream's callbacks:
/// `PulseConnection.play` holds it until `tearDown()` has cleared them.
final class PulsePlayback: @unchecked Sendable {
    private var stream: OpaquePointer?
    /// Everything received so far, as float32 bytes; `offset` of them are written to the server.
    private var bytes: [UInt8] = []
    private var offset = 0
    /// True once the producer has delivered its last chunk.
    private var inputFinished = false
    /// The input's bytes per second (its format's; set by `PulseConnection.play`).
    var inputBytesPerSecond = 0.0
    /// When the input received so far would have played out, had each part started playing when
    /// it came or when the one before it ended, whichever is later: what the watchdog's deadline
    /// follows (`PulseConnection.run`). Nil until the first part.
    private(set) var expectedInputEnd: ContinuousClock.Instant?
    /// True once the producer has delivered its last chunk.
    var inputEnded: Bool { inputFinished }
    private var draining = false
    /// Kept so `tearDown` can cancel it: its callback must never run after this object is gone.
    private var drainOperation: OpaquePointer?
    private var continuation: CheckedContinuation<Void, any Error>?
    let requestedAt = ContinuousClock.now
    private(set) var startedAt: ContinuousClock.Instant?
    /// When the stream, uncorked, first held enough to play (the prebuffer, or all of a short
    /// input): the earliest it can have started. The `started` notice comes later, by the
    /// server's and the mainloop's delay (tens of ms on a busy machine).
    private var playableSince: ContinuousClock.Instant?
    private(set) var stoppedEarly = false
    /// Set by `stopNow`: a stream not yet created is never created, one still connecting is
    /// disconnected the moment it is ready, and nothing more is written.
    private var cancelled = false
    /// Set without the lock by the caller's cancellation handler (which must not take it): a
    /// playback not started yet is then never started, a stream connecting is disconnected once
    /// ready, and nothing more is written.
    let cancelRequested = Atomic<Bool>(false)
    /// True once a borrowed warm stream was uncorked: it may hold data or a faded volume since.
    private var warmTouched = false
    /// The stream failed after the caller was resumed (while the sink played out what it held):
    /// the end was not heard.
    private(set) var lostAfterFinish: SoundSystemError?
    private var sinkName = ""
    private var bytesPerSecond = 0
    /// Pausing corks the stream; the time spent paused moves the end later.
    private var pausedAt: ContinuousClock.Instant?
    private(set) var pausedTotal: Duration = .zero
    /// The connection's warm stream, when this playback borrowed it instead of making its own.
    private(set) var warm: WarmStream?
    /// The connection's mainloop lock, checked in debug builds.
    private let lock: MainloopLock
    /// Set for a playback on several sinks at once: the stream stays corked until the gate opens.
    var gate: PlaybackGate?
    /// True once this playback arrived at its gate or left it: each counts once.
    private var gatePassed = false
    /// A failure that came before `start` (the audio source failed first): `start` ends with it.
    private var failedBeforeStart: SoundSystemError?
    private var startCalled = false
    private var prebufferBytes = 0
    /// The time from this stream's sink to its listener that the sink does not report
    /// (`rooms.<room>.latency_offset`): counted in its latency and in its onset.
    var latencyOffset: Duration = .zero
    /// How long after it is uncorked its first sample is heard (`LatencyAlignment.startDelay`:
    /// what the last announcement measured on this sink, else the sink's latency as the server
    /// reports it while this stream waits corked), plus `latencyOffset`. Nil until known; only a
    /// gated stream asks, before it arrives at the gate.
    private(set) var latency: Duration?
    /// What the last gated announcement measured per sink; shared by the connection's playbacks.
    var startDelays: SinkStartDelays?
    /// When the gate uncorked it: its start delay is measured from here.
    private var uncorkedAt: ContinuousClock.Instant?
    /// When the first sample reaches its listener, from the stream's timing once it started
    /// (`LatencyAlignment.onset`); nil until measured, or when it could not be.
    private(set) var heardAt: ContinuousClock.Instant?
    /// What the timing asked for is wanted for (one request at a time), and the request, kept
    /// so that `tearDown` can cancel it: its callback must never run after this object is gone.
    private var timingWanted: TimingUse?
    private var timingOperation: OpaquePointer?
    private enum TimingUse { case latency, onset }
    /// The server's byte index of this playback's first sample: a warm stream played others before.
    private var firstByteIndex: Int64 = 0
    /// The mainloop timer that uncorks a stream the gate holds back for its latency.
    private var holdTimer: OpaquePointer?

    init(lock: MainloopLock) {
        self.lock = lock
    }

    /// How long the server may hold a new stream's data ahead of the speaker. A large target
    /// buffer lets the server rewind what the sink already rendered ahead, so the first sample is
    /// heard at once instead of after up to two seconds (DESIGN.md, "What was measured").
    static let bufferMicroseconds: UInt64 = 2_000_000
    /// Playback starts once this much is buffered. Small, so streamed speech starts with its first
    /// chunk; not zero, because a stream with no prebuffer that runs dry has the next data it gets
    /// placed behind the read index and silently skipped (about 200 ms after an idle period).
    static let prebufferMicroseconds: UInt64 = 20_000

    /// Creates and connects a stream of its own, or, given a `warm` stream on this sink in this
    /// format, takes that one over and uncorks it. Called with the mainloop lock held.
    func start(_ continuation: CheckedContinuation<Void, any Error>, context: OpaquePointer,
               format: AudioFormat, sinkName: String, mediaRole: String, warm: WarmStream? = nil) {
        lock.assertLocked()
        self.continuation = continuation
        startCalled = true
        self.sinkName = sinkName
        // The input failed before this stream began (a speech engine that exits at once): fail
        // now, not after the watchdog's minute with a stream that never ends.
        if let failedBeforeStart { return finish(failedBeforeStart) }
        // Held from here, so that `tearDown` gives it back whatever happens next.
        self.warm = warm
        self.stream = warm?.stream
        // Cancelled before the stream existed (Ctrl-C, a critical announcement): nothing to play.
        if cancelRequested.load(ordering: .acquiring) {
            stoppedEarly = true
            cancelled = true
        }
        if cancelled { return finish(nil) }
        let stream: OpaquePointer
        if let warm {
            stream = warm.stream
        } else {
            do {
                stream = try Self.makeStream(context: context, format: format, mediaRole: mediaRole)
            } catch {
                return finish(error)
            }
        }
        self.stream = stream
        bytesPerSecond = pa_bytes_per_second(pa_stream_get_sample_spec(stream))
        prebufferBytes = pa_usec_to_bytes(Self.prebufferMicroseconds, pa_stream_get_sample_spec(stream))
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        pa_stream_set_state_callback(stream, { stream, userdata in
            PulsePlayback.from(userdata).stateChanged()
        }, userdata)
        pa_stream_set_write_callback(stream, { _, length, userdata in
            PulsePlayback.from(userdata).write(upTo: length)
        }, userdata)
        pa_stream_set_started_callback(stream, { _, userdata in
            let playback = PulsePlayback.from(userdata)
            guard playback.startedAt == nil else { return }
            playback.startedAt = .now
            playback.requestTiming(for: .onset)
        }, userdata)
        if let warm {
            // Connected and corked since the last announcement: the data written next plays once
            // the prebuffer is reached, with no round trip to create a stream.
            warmTouched = true
            firstByteIndex = warm.bytesWritten
            // In step with other rooms: the gate uncorks it once its latency is known. The input
            // may be here already.
            if gate != nil {
                requestTiming(for: .latency)
                return writeWhatFits()
            }
            do throws(SoundSystemError) { try PulseOperation.send("uncork", on: stream, pa_stream_cork(stream, 0, nil, nil)) } catch {
                // Still corked, it would never play nor drain: fail now, not at the watchdog.
                return finish(error)
            }
        } else if let error = Self.connect(stream, sinkName: sinkName, corked: gate != nil) {
            finish(error)
        }
        // Input given before the start (every room's copy of a clip) is written once connected.
        writeWhatFits()
    }

    /// Reports to the gate once connected with the prebuffer written (or all of a short clip).
    private func arriveAtGateIfReady() {
        guard let gate, !gatePassed, let stream, pa_stream_get_state(stream) == PA_STREAM_READY, latency != nil,
              offset >= prebufferBytes || (inputFinished && offset >= bytes.count) else { return }
        gatePassed = true
        gate.arrive(self)
    }

    /// Starts a stream the gate held corked, `hold` from now (a mainloop timer: sub-millisecond,
    /// where a task's sleep can be late by more than the spread it is meant to remove). Called
    /// with the lock held.
    func uncorkFromGate(after hold: Duration) {
        lock.assertLocked()
        let microseconds = min(hold, LatencyAlignment.maximumStartDelay + LatencyAlignment.maximumOffset).inMicroseconds
        guard microseconds >= 200, holdTimer == nil, let stream else { return uncorkFromGate() }
        holdTimer = pa_context_rttime_new(pa_stream_get_context(stream), pa_rtclock_now() + UInt64(microseconds), { api, event, _, userdata in
            let playback = PulsePlayback.from(userdata)
            api?.pointee.time_free(event)
            playback.holdTimer = nil
            playback.uncorkFromGate()
        }, Unmanaged.passUnretained(self).toOpaque())
        // No timer (the context is gone): start now rather than never.
        if holdTimer == nil { uncorkFromGate() }
    }

    /// Starts a stream the gate held corked. Called with the lock held.
    func uncorkFromGate() {
        lock.assertLocked()
        // Paused meanwhile: it stays corked until resumed.
        guard let stream, !stopping, pausedAt == nil, pa_stream_get_state(stream) == PA_STREAM_READY else { return }
        do throws(SoundSystemError) { try PulseOperation.send("uncork", on: stream, pa_stream_cork(stream, 0, nil, nil)) } catch {
            finish(error)
        }
        playableSince = playableSince ?? .now
        uncorkedAt = uncorkedAt ?? .now
    }

    /// Asks the server for the stream's timing, for its latency before the gate or its onset
    /// once started. One request at a time; with the lock held.
    private func requestTiming(for use: TimingUse) {
        // Asked only once READY; the started callback's ask cannot meet a latency ask still out
        // (a gated stream starts only after its latency came).
        guard let stream, timingOperation == nil, pa_stream_get_state(stream) == PA_STREAM_READY else { return }
        if use == .latency && latency != nil { return }
        timingWanted = use
        let operation = pa_stream_update_timing_info(stream, { stream, success, userdata in
            PulsePlayback.from(userdata).timingArrived(success != 0 ? pa_stream_get_timing_info(stream) : nil)
        }, Unmanaged.passUnretained(self).toOpaque())
        guard let operation else { return timingArrived(nil) }
        timingOperation = operation
    }

    /// The server's answer: nil when it could not say. A latency not known counts as zero (the
    /// room is not held back, and its `latency_offset` still counts); an onset not known is left
    /// out and the `started` notice stands in.
    private func timingArrived(_ info: UnsafePointer<pa_timing_info>?) {
        if let timingOperation { pa_operation_unref(timingOperation) }
        timingOperation = nil
        let use = timingWanted
        timingWanted = nil
        let sinkLatency = info.map { Duration.microseconds(Int64(clamping: $0.pointee.sink_usec)) }
        switch use {
        case .latency:
            latency = LatencyAlignment.startDelay(learned: startDelays?.delays[sinkName], reported: sinkLatency ?? .zero) + latencyOffset
            arriveAtGateIfReady()
        case .onset:
            guard let info, info.pointee.read_index_corrupt == 0, let sinkLatency, bytesPerSecond > 0, pausedAt == nil else { return }
            let read = info.pointee.read_index - firstByteIndex
            // Read further than written: the reading is not of this playback's start. Not
            // playing (it ran dry: a short clip on a sink that renders far ahead read it whole at
            // once): the sink's latency then counts silence rendered after it, and the onset
            // would come out late by that much; the started notice stands in.
            guard read >= 0, read <= Int64(offset), info.pointee.playing != 0 else { return }
            // The reading is as of the server's answer: a transport before this callback. (The
            // reply's own timestamp, aged, agreed less well with what the test bed's listener
            // heard: 7 ms at the median against 2.)
            let readingAt = ContinuousClock.now - .microseconds(Int64(clamping: info.pointee.transport_usec))
            let heardAt = LatencyAlignment.onset(readingAt: readingAt, readSinceStart: .microseconds(read * 1_000_000 / Int64(bytesPerSecond)),
                                                 sinkLatency: sinkLatency, offset: latencyOffset)
            self.heardAt = heardAt
            // What this sink took from uncork to heard, for the next announcement's alignment.
            if let uncorkedAt, let startDelays {
                startDelays.delays[sinkName] = min(max(.zero, heardAt - uncorkedAt - latencyOffset), LatencyAlignment.maximumStartDelay)
            }
        case nil:
            break
        }
    }

    /// A new playback stream in `format` (as float32) with Herald's properties, not yet connected.
    static func makeStream(context: OpaquePointer, format: AudioFormat, mediaRole: String) throws(SoundSystemError) -> OpaquePointer {
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(format.sampleRate),
                                  channels: UInt8(clamping: format.channelCount))
        guard pa_sample_spec_valid(&spec) != 0 else {
            throw .operationFailed("unplayable sample format: \(format.sampleRate) Hz, \(format.channelCount) channels")
        }
        var map = pa_channel_map()
        pa_channel_map_init_auto(&map, UInt32(format.channelCount), PA_CHANNEL_MAP_DEFAULT)
        let properties = pa_proplist_new()
        defer { pa_proplist_free(properties) }
        _ = pa_proplist_sets(properties, PA_PROP_MEDIA_ROLE, mediaRole)
        _ = pa_proplist_sets(properties, PA_PROP_MEDIA_NAME, "Herald announcement")
        guard let stream = pa_stream_new_with_proplist(context, "announcement", &spec, &map, properties) else {
            throw .operationFailed("cannot create a stream: \(PulseConnection.lastError(context))")
        }
        return stream
    }

    /// Connects `stream` to `sinkName` with Herald's buffering; the error when libpulse refused.
    static func connect(_ stream: OpaquePointer, sinkName: String, corked: Bool) -> SoundSystemError? {
        let spec = pa_stream_get_sample_spec(stream)
        let unset = UInt32.max  // libpulse's "(uint32_t) -1": let the server choose
        var attributes = pa_buffer_attr(
            maxlength: unset, tlength: UInt32(pa_usec_to_bytes(bufferMicroseconds, spec)),
            prebuf: UInt32(pa_usec_to_bytes(prebufferMicroseconds, spec)), minreq: unset, fragsize: unset)
        // DONT_MOVE: the server must not carry the announcement silently to another sink (a new
        // default that is muted, say); it fails instead, and the daemon says it again there.
        // Full volume and unmuted, said explicitly: module-stream-restore (loaded by every desktop
        // PulseAudio) gives a new stream the volume last set on one of the same application, and
        // a fade-out (`fadeAndStop`) sets that to silence: without these every announcement after
        // an interrupted one was played at 0% (found by scripts/soak.sh).
        let flags = pa_stream_flags_t(PA_STREAM_DONT_MOVE.rawValue | PA_STREAM_START_UNMUTED.rawValue
                                      | (corked ? PA_STREAM_START_CORKED.rawValue : 0))
        var volume = pa_cvolume()
        pa_cvolume_set(&volume, UInt32(spec?.pointee.channels ?? 1), herald_pa_volume_norm())
        guard pa_stream_connect_playback(stream, sinkName, &attributes, flags, &volume, nil) < 0 else { return nil }
        return .operationFailed("cannot play on sink '\(sinkName)': \(PulseConnection.lastError(pa_stream_get_context(stream)))")
    }

    private static func from(_ userdata: UnsafeMutableRawPointer?) -> PulsePlayback {
        Unmanaged<PulsePlayback>.fromOpaque(userdata!).takeUnretainedValue()
    }

    private func stateChanged() {
        guard let stream else { return }
        let state = pa_stream_get_state(stream)
        if state == PA_STREAM_READY && stopping {
            // Cancelled while connecting: nothing of it is heard.
            if !cancelled { stopNow() }
            pa_stream_disconnect(stream)
        } else if state == PA_STREAM_READY && gate != nil {
            requestTiming(for: .latency)
        } else if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED {
            let context = pa_stream_get_context(stream)
            // The server still answers: the sink went away under the stream (DONT_MOVE).
            let error: SoundSystemError = pa_context_get_state(context) == PA_CONTEXT_READY
                ? .sinkGone(sinkName) : .connectionLost("playback stream: \(PulseConnection.lastError(context))")
            if continuation == nil && !cancelled { lostAfterFinish = error }
            finish(error)
        }
    }

    /// Adds produced samples and writes what the server can take now. Called with the lock held.
    func append(_ samples: [Float]) {
        lock.assertLocked()
        samples.withUnsafeBytes { bytes.append(contentsOf: $0) }
        let now = ContinuousClock.now
        let seconds = Double(samples.count * MemoryLayout<Float>.size) / max(1, inputBytesPerSecond)
        expectedInputEnd = max(expectedInputEnd ?? now, now) + .seconds(seconds)
        writeWhatFits()
    }

    /// Marks the end of the input; the stream drains once everything is written. Lock held.
    func finishInput() {
        lock.assertLocked()
        inputFinished = true
        writeWhatFits()
    }

    private func writeWhatFits() {
        guard let stream, !stopping, pa_stream_get_state(stream) == PA_STREAM_READY else { return }
        let writable = pa_stream_writable_size(stream)
        if writable != Int.max && writable > 0 { write(upTo: writable) } else if inputFinished { write(upTo: 0) }
    }

    private func write(upTo length: Int) {
        guard let stream, !draining, !stopping else { return }
        let count = min(length, bytes.count - offset)
        if count > 0 {
            let result = bytes.withUnsafeBytes {
                pa_stream_write(stream, $0.baseAddress! + offset, count, nil, 0, PA_SEEK_RELATIVE)
            }
            guard result == 0 else {
                return finish(.operationFailed("write: \(PulseConnection.lastError(pa_stream_get_context(stream)))"))
            }
            offset += count
            warm?.bytesWritten += Int64(count)
        }
        if gate == nil, playableSince == nil, offset >= prebufferBytes || (inputFinished && offset >= bytes.count) { playableSince = .now }
        arriveAtGateIfReady()
        if inputFinished && offset >= bytes.count {
            // Draining also starts a stream whose data never reached the prebuffer mark.
            draining = true
            let operation = pa_stream_drain(stream, { stream, success, userdata in
                let playback = PulsePlayback.from(userdata)
                playback.finish(success != 0 ? nil : .operationFailed(
                    "drain: \(PulseConnection.lastError(pa_stream_get_context(stream)))"))
            }, Unmanaged.passUnretained(self).toOpaque())
            // Not started, no callback will ever come: fail now rather than hold the queue until
            // the watchdog (60 s and more) gives up.
            do throws(SoundSystemError) { drainOperation = try PulseOperation.started("drain", operation, context: pa_stream_get_context(stream)) } catch {
                finish(error)
            }
        }
    }

    /// When the last sample will have been heard: a drained stream has handed its last sample to
    /// the sink, which may hold up to its latency (seconds, on an idle sink) rendered ahead. The
    /// server rewinds to start a new stream at once, so the end is heard one audio length after
    /// the start. Called with the lock held.
    var endHeardAt: ContinuousClock.Instant? {
        lock.assertLocked()
        // From when the listener heard the first sample: a room behind a tunnel or a Bluetooth
        // speaker hears its end that much later, and is restored after, not before.
        guard let start = heardAt ?? startedAt.map({ $0 + latencyOffset }), bytesPerSecond > 0 else { return nil }
        return start + pausedTotal + .microseconds(Int64(offset) * 1_000_000 / Int64(bytesPerSecond))
    }

    /// True while paused (corked by `setPaused`). Called with the lock held.
    var isPaused: Bool {
        lock.assertLocked()
        return pausedAt != nil
    }

    /// True once every sample is written to the server (it drains). Called with the lock held.
    var allWritten: Bool {
        lock.assertLocked()
        return draining
    }

    /// The earliest its last sample can be heard: from when it could first play, or, for input
    /// that came slower than it plays, from when the input came (`expectedInputEnd`). Never
    /// after `endHeardAt`. Called with the lock held.
    var earliestEnd: ContinuousClock.Instant? {
        lock.assertLocked()
        guard let playableSince else { return endHeardAt }
        let written = playableSince + latencyOffset + pausedTotal + .microseconds(Int64(offset) * 1_000_000 / Int64(max(1, bytesPerSecond)))
        let earliest = max(written, (expectedInputEnd ?? written) + pausedTotal)
        return endHeardAt.map { min($0, earliest) } ?? earliest
    }

    /// How long the input ends below -50 dBFS (a clip's decay, a voice's trailing silence): the
    /// listener has heard its end that long before the last sample. Called with the lock held.
    var quietTail: Duration {
        lock.assertLocked()
        let quiet = bytes.withUnsafeBytes { raw in
            raw.bindMemory(to: Float.self).reversed().prefix { abs($0) <= Self.quietLevel }.count
        }
        return .microseconds(Int64(Double(quiet * MemoryLayout<Float>.size) / max(1, inputBytesPerSecond) * 1_000_000))
    }

    /// -50 dBFS: below what a listener hears over a room's own noise.
    static let quietLevel: Float = 0.003

    /// Resumes the caller at most once. Called with the lock held.
    func finish(_ error: SoundSystemError?) {
        lock.assertLocked()
        // Failed or stopped before it arrived: the other rooms do not wait for it.
        if let gate, !gatePassed {
            gatePassed = true
            gate.leave()
        }
        if !startCalled, let error { failedBeforeStart = error }
        guard let continuation else { return }
        self.continuation = nil
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }

    /// Stopped, or asked to stop by a cancellation that has not been handled yet.
    private var stopping: Bool { cancelled || cancelRequested.load(ordering: .acquiring) }

    /// The index of the stream to fade out for a cancellation, marking the playback stopped early
    /// (a faded stream is never handed back as a warm one); nil when it is not playing, and then
    /// it is stopped at once. Called with the lock held.
    func beginFadeOut() -> UInt32? {
        lock.assertLocked()
        guard let index = streamIndex, !cancelled else {
            stopNow()
            return nil
        }
        stoppedEarly = true
        return index
    }

    /// The server's index of this stream, once connected. Called with the lock held.
    var streamIndex: UInt32? {
        lock.assertLocked()
        guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY else { return nil }
        let index = pa_stream_get_index(stream)
        return index == herald_pa_invalid_index() ? nil : index
    }

    /// Time spent paused so far, the current pause included. Called with the lock held.
    var pausedSoFar: Duration {
        lock.assertLocked()
        return pausedTotal + (pausedAt.map { .now - $0 } ?? .zero)
    }

    /// Pauses (corks) or resumes the stream; false when it is not playing. Called with the lock held.
    func setPaused(_ paused: Bool) -> Bool {
        lock.assertLocked()
        guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY, (pausedAt != nil) != paused else { return false }
        // Refused: neither paused nor resumed, and the time paused stays as it was.
        guard (try? PulseOperation.send(paused ? "cork" : "uncork", on: stream, pa_stream_cork(stream, paused ? 1 : 0, nil, nil))) != nil else {
            return false
        }
        if paused {
            pausedAt = .now
        } else if let pausedAt {
            pausedTotal += .now - pausedAt
            self.pausedAt = nil
        }
        return true
    }

    /// Drops what is still buffered and ends the playback early. Called with the lock held.
    func stopNow() {
        lock.assertLocked()
        stoppedEarly = true
        cancelled = true
        if let stream, pa_stream_get_state(stream) == PA_STREAM_READY {
            // A refused flush lets the buffered rest play until `tearDown` disconnects the stream,
            // which drops it as well: nothing to do about it here.
            _ = try? PulseOperation.send("flush", on: stream, pa_stream_flush(stream, nil, nil))
        }
        finish(nil)
    }

    /// Clears the callbacks and frees the stream. Called with the lock held.
    func tearDown() {
        lock.assertLocked()
        for operation in [drainOperation, timingOperation].compactMap({ $0 }) {
            // A stopped stream's reply can still arrive; cancelled, its callback is not called.
            if pa_operation_get_state(operation) == PA_OPERATION_RUNNING { pa_operation_cancel(operation) }
            pa_operation_unref(operation)
        }
        (drainOperation, timingOperation) = (nil, nil)
        if let holdTimer {
            let api = pa_threaded_mainloop_get_api(lock.mainloop)
            api?.pointee.time_free(holdTimer)
            self.holdTimer = nil
        }
        guard let stream else { return }
        pa_stream_set_write_callback(stream, nil, nil)
        pa_stream_set_started_callback(stream, nil, nil)
        if let warm {
            // Played to its end, the borrowed stream goes back corked for the next announcement.
            // Stopped early it may be faded to silence or hold a flushed remainder: let it go, and
            // the owner opens a fresh one.
            pa_stream_set_state_callback(stream, nil, nil)
            // Never uncorked (cancelled before it started): untouched, it is as good as before.
            warm.giveBack(reusable: lostAfterFinish == nil && (!warmTouched || !stoppedEarly))
            self.stream = nil
            return
        }
        PlaybackReaper.release(stream)
        self.stream = nil
    }
}

/// Disconnects and frees streams, also one torn down while still connecting.
enum PlaybackReaper {
    /// Lets go of the caller's `stream` (its state callback cleared), with the mainloop lock
    /// held: a ready stream is disconnected and freed; one still connecting cannot be
    /// disconnected yet, and freed now it would live on as an orphan (a sink-input, or a
    /// microphone kept open), so a reaper of its own disconnects it once ready, then frees it.
    static func release(_ stream: OpaquePointer) {
        pa_stream_set_state_callback(stream, nil, nil)
        switch pa_stream_get_state(stream) {
        case PA_STREAM_READY:
            pa_stream_disconnect(stream)
            pa_stream_unref(stream)
        case PA_STREAM_CREATING:
            adopt(stream)
        default:
            pa_stream_unref(stream)
        }
    }

    /// Called with the mainloop lock held; takes over the caller's reference to `stream`.
    static func adopt(_ stream: OpaquePointer) {
        pa_stream_set_state_callback(stream, { stream, _ in
            guard let stream else { return }
            let state = pa_stream_get_state(stream)
            if state == PA_STREAM_READY {
                pa_stream_disconnect(stream)
            } else if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED {
                pa_stream_set_state_callback(stream, nil, nil)
                pa_stream_unref(stream)
            }
        }, nil)
    }
}

import CPulse
import HeraldCore

/// A playback stream kept connected and corked between announcements, so that speaking needs no
/// new stream: a playback borrows it, writes, uncorks, and gives it back corked once the end was
/// heard. Corked, it does not keep the sink from suspending: PulseAudio counts only uncorked
/// inputs as using a sink (`pa_sink_used_by`).
///
/// `@unchecked Sendable`: every field is touched with the connection's mainloop lock held.
final class WarmStream: @unchecked Sendable {
    let stream: OpaquePointer
    let sinkName: String
    let format: AudioFormat
    /// Borrowed by a playback; not handed out again until it comes back.
    private(set) var lent = false
    /// Given back unusable (stopped half-way): the owner replaces it.
    private(set) var spent = false
    /// Every byte written to it so far: the server's index of the next playback's first sample.
    var bytesWritten: Int64 = 0
    /// The connection's mainloop lock, checked in debug builds.
    private let lock: MainloopLock

    /// Creates the stream and starts connecting it, corked. Called with the lock held.
    init(lock: MainloopLock, context: OpaquePointer, sinkName: String, format: AudioFormat,
         mediaRole: String) throws(SoundSystemError) {
        lock.assertLocked()
        self.lock = lock
        stream = try PulsePlayback.makeStream(context: context, format: format, mediaRole: mediaRole)
        self.sinkName = sinkName
        self.format = format
        if let error = PulsePlayback.connect(stream, sinkName: sinkName, corked: true) {
            pa_stream_unref(stream)
            throw error
        }
    }

    private var state: pa_stream_state_t { pa_stream_get_state(stream) }

    /// Connected, or still connecting: no reason to open another.
    var isAlive: Bool { !spent && (state == PA_STREAM_READY || state == PA_STREAM_CREATING) }

    /// Whether a playback of `format` on `sinkName` can borrow it now.
    func fits(sinkName: String, format: AudioFormat) -> Bool {
        !lent && !spent && self.sinkName == sinkName && self.format == format && state == PA_STREAM_READY
    }

    /// Marks it borrowed. Called with the lock held.
    func lend() {
        lock.assertLocked()
        lent = true
    }

    /// Takes it back from a playback, corked when it can serve again. Called with the lock held.
    func giveBack(reusable: Bool) {
        lock.assertLocked()
        lent = false
        spent = !reusable
        // Corked either way: an uncorked input, even an empty one, keeps the sink from suspending.
        // One that cannot be corked is spent: its owner closes it.
        if state == PA_STREAM_READY, (try? PulseOperation.send("cork", on: stream, pa_stream_cork(stream, 1, nil, nil))) == nil {
            spent = true
        }
    }

    /// Disconnects and frees it; it must not be lent. Called with the lock held.
    func close() {
        lock.assertLocked()
        PlaybackReaper.release(stream)
    }
}

extension PulseConnection {
    /// Keeps a corked stream open on `sinkName` in `format` (the one speech, voice packs and
    /// chimes share), so the next announcement in that format starts without creating one.
    /// Replaces a stream kept for another sink or format, or one that died with its sink; does
    /// nothing while a playback has the stream. Returns at once: the stream connects in the
    /// background, and a playback before it is ready makes its own.
    public func keepWarm(onSink sinkName: String, format: AudioFormat, mediaRole: String = "event") throws {
        try withLock {
            if let warm = warmStream {
                if warm.lent || (warm.isAlive && warm.sinkName == sinkName && warm.format == format) { return }
                warm.close()
                warmStream = nil
            }
            guard pa_context_get_state(context) == PA_CONTEXT_READY else {
                throw SoundSystemError.connectionLost("not connected (\(Self.lastError(context)))")
            }
            warmStream = try WarmStream(lock: lock, context: context, sinkName: sinkName, format: format, mediaRole: mediaRole)
        }
    }

    /// The warm stream, marked borrowed, when it fits this playback. Called with the lock held.
    func borrowWarmStream(sinkName: String, format: AudioFormat) -> WarmStream? {
        lock.assertLocked()
        guard let warm = warmStream, warm.fits(sinkName: sinkName, format: format) else { return nil }
        warm.lend()
        return warm
    }
}

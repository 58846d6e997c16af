import HeraldCore

/// Starts the streams of one announcement on several sinks so that they are heard at the same
/// moment (DESIGN.md "Rooms"): each stream connects corked, learns its sink's latency and fills
/// its prebuffer, and once every one has (or has failed), each is uncorked as much later than the
/// slowest as its listener hears it sooner, so the rooms are heard in step.
///
/// `@unchecked Sendable`: touched only with the connection's mainloop lock held, as its playbacks are.
final class PlaybackGate: @unchecked Sendable {
    /// Members that have neither arrived nor left.
    private var outstanding: Int
    private var arrived: [PulsePlayback] = []
    /// Once open, a member arriving late starts at once: a room slow to connect never holds the
    /// others longer than `PulseConnection.gateTimeout` after the first arrived (a room held back
    /// for a slower speaker's latency waits that latency on top).
    private(set) var isOpen = false
    /// Called when the first member arrives (with the lock held): starts `timer`. Counted from
    /// then, not from the play call, so a sentence slow to its first chunk does not open the gate
    /// before any room is ready.
    var firstArrived: (() -> Void)?
    /// Opens the gate `PulseConnection.gateTimeout` after the first arrival; cancelled at the end.
    var timer: Task<Void, Never>?

    init(members: Int) {
        outstanding = members
    }

    /// `playback` is connected and holds its prebuffer, corked.
    func arrive(_ playback: PulsePlayback) {
        guard !isOpen else { return playback.uncorkFromGate() }
        if arrived.isEmpty { firstArrived?() }
        arrived.append(playback)
        outstanding -= 1
        if outstanding == 0 { open() }
    }

    /// `playback` failed or was stopped before it arrived: the others no longer wait for it.
    func leave() {
        guard !isOpen else { return }
        outstanding -= 1
        if outstanding == 0 { open() }
    }

    /// Uncorks every member that arrived, in one pass, each held back by how much sooner its
    /// listener would hear it than the slowest member's (`LatencyAlignment`); later ones start as
    /// they arrive.
    func open() {
        guard !isOpen else { return }
        isOpen = true
        let starting = arrived
        arrived = []
        let holds = LatencyAlignment.holds(starting.map { $0.latency ?? .zero })
        for (playback, hold) in zip(starting, holds) { playback.uncorkFromGate(after: hold) }
    }
}

/// How long each sink took from uncork to its first sample heard, as the last gated
/// announcement there measured it (`PulsePlayback`'s onset): the next one's alignment starts from
/// it rather than from the corked reading (`LatencyAlignment.startDelay`).
///
/// `@unchecked Sendable`: touched only with the connection's mainloop lock held.
final class SinkStartDelays: @unchecked Sendable {
    var delays: [String: Duration] = [:]
}

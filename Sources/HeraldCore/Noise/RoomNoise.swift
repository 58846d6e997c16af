import Synchronization

/// Every room's noise as its microphone was heard: the floors the meters feed, the rooms where
/// Herald is speaking now (not measured), and what an announcement opening a room is given.
/// Shared by the noise monitor (which feeds it) and the announcements (which hold and read it).
public final class RoomNoise: Sendable {
    private struct Listening {
        var settings: NoiseSettings
        var floor: NoiseFloor
        /// Announcements holding the room now: nothing is measured while any does.
        var holds = 0
        /// When it may listen again after the last hold (the sense delay).
        var listenFrom: ContinuousClock.Instant?
        /// The source found now; nil while none is (unplugged, no server).
        var source: String?
        /// The source the floor was heard from: kept through a server restart, forgotten for another microphone.
        var heardFrom: String?
        var problem: String?
        /// Consecutive blocks of exact zeros: a muted or dead microphone, not a quiet room.
        var silentBlocks = 0

        /// True while Herald speaks here, or did within the sense delay.
        func deaf(at instant: ContinuousClock.Instant) -> Bool { holds > 0 || instant < listenFrom ?? instant }
    }

    private let rooms = Mutex<[String: Listening]>([:])
    /// Two seconds of exact zeros is a microphone that hears nothing.
    public static let digitalSilenceBlocks = 20

    public init() {}

    /// Takes the rooms' noise settings (at start and after a reload): a room whose source and
    /// window are unchanged keeps what was heard; one without `noise` is forgotten. A room an
    /// announcement holds stays held whatever changed.
    public func configure(_ settings: [String: NoiseSettings]) {
        rooms.withLock { rooms in
            rooms = settings.reduce(into: [:]) { next, entry in
                var room = Listening(settings: entry.value, floor: NoiseFloor(window: entry.value.window))
                if let kept = rooms[entry.key] {
                    if kept.settings.source == entry.value.source, kept.settings.window == entry.value.window {
                        room = kept
                        room.settings = entry.value
                    } else {
                        (room.holds, room.listenFrom) = (kept.holds, kept.listenFrom)
                    }
                }
                next[entry.key] = room
            }
        }
    }

    /// The monitor found `source` for `room` (nil: none), or cannot listen for `problem`. Another
    /// microphone starts a new floor; the same one found again after a server restart does not.
    public func listening(_ room: String, source: String?, problem: String?) {
        rooms.withLock { rooms in
            guard var state = rooms[room] else { return }
            if let source, source != state.heardFrom {
                state.floor.reset()
                state.silentBlocks = 0
                state.heardFrom = source
            }
            state.source = source
            state.problem = problem ?? (state.silentBlocks >= Self.digitalSilenceBlocks ? Self.digitalSilence : nil)
            rooms[room] = state
        }
    }

    static let digitalSilence = "reads digital silence (exact zeros): the microphone is muted in hardware or dead"

    /// One block heard in `room` at `at`. Ignored while Herald speaks, or did within the sense
    /// delay, in any room listened to through the same microphone (one microphone between two
    /// speakers hears both).
    public func heard(_ room: String, _ block: SpeechBandMeter.Block, at: ContinuousClock.Instant) {
        rooms.withLock { rooms in
            guard var state = rooms[room],
                  !rooms.values.contains(where: { $0.source == state.source && $0.deaf(at: at) }) else { return }
            if block.digitalSilence {
                state.silentBlocks += 1
                if state.silentBlocks == Self.digitalSilenceBlocks {
                    state.floor.reset()
                    state.problem = state.problem ?? Self.digitalSilence
                }
            } else {
                if state.problem == Self.digitalSilence { state.problem = nil }
                state.silentBlocks = 0
                // Zeros never enter the floor: a few of them would make it -120 dBFS.
                state.floor.add(block.dBFS)
            }
            rooms[room] = state
        }
    }

    /// An announcement opens `room`: what it is given, and nothing is measured until `release`.
    public func hold(_ room: String) -> NoiseReading? {
        rooms.withLock { rooms in
            guard var state = rooms[room] else { return nil }
            let reading = Self.reading(state)
            state.holds += 1
            rooms[room] = state
            return reading
        }
    }

    /// The announcement that held `room` closed it: listening starts again after the sense delay.
    public func release(_ room: String, now: ContinuousClock.Instant = .now) {
        rooms.withLock { rooms in
            guard var state = rooms[room], state.holds > 0 else { return }
            state.holds -= 1
            state.listenFrom = now + state.settings.senseDelay
            rooms[room] = state
        }
    }

    /// What `room`'s microphone says now; nil for a room without `noise`.
    public func reading(_ room: String) -> NoiseReading? {
        rooms.withLock { rooms in rooms[room].map { Self.reading($0) } }
    }

    private static func reading(_ state: Listening) -> NoiseReading {
        let floor = state.problem == nil && state.source != nil ? state.floor.floor : nil
        return NoiseReading(source: state.source, floorDBFS: floor,
                            gainDB: floor.map { NoiseLaw.gainDB(floorDBFS: $0, settings: state.settings) } ?? 0,
                            problem: state.problem ?? (state.source == nil ? "no source found yet" : nil))
    }
}

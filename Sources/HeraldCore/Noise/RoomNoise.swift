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
        var source: String?
        var problem: String?
        /// Consecutive blocks of exact zeros: a muted or dead microphone, not a quiet room.
        var silentBlocks = 0
    }

    private let rooms = Mutex<[String: Listening]>([:])
    /// Two seconds of exact zeros is a microphone that hears nothing.
    public static let digitalSilenceBlocks = 20

    public init() {}

    /// Takes the rooms' noise settings (at start and after a reload): a room whose source and
    /// window are unchanged keeps what was heard; one without `noise` is forgotten.
    public func configure(_ settings: [String: NoiseSettings]) {
        rooms.withLock { rooms in
            rooms = settings.reduce(into: [:]) { next, entry in
                if var kept = rooms[entry.key], kept.settings.source == entry.value.source, kept.settings.window == entry.value.window {
                    kept.settings = entry.value
                    next[entry.key] = kept
                } else {
                    next[entry.key] = Listening(settings: entry.value, floor: NoiseFloor(window: entry.value.window))
                }
            }
        }
    }

    /// The rooms listened to, with their settings.
    public var configured: [String: NoiseSettings] { rooms.withLock { $0.mapValues(\.settings) } }

    /// The monitor found `source` for `room` (nil: none), or cannot listen for `problem`. A new
    /// source starts a new floor: another microphone is another room to learn.
    public func listening(_ room: String, source: String?, problem: String?) {
        rooms.withLock { rooms in
            guard var state = rooms[room] else { return }
            if state.source != source {
                state.floor.reset()
                state.silentBlocks = 0
            }
            state.source = source
            state.problem = problem ?? (state.silentBlocks >= Self.digitalSilenceBlocks ? Self.digitalSilence : nil)
            rooms[room] = state
        }
    }

    static let digitalSilence = "reads digital silence (exact zeros): the microphone is muted in hardware or dead"

    /// One block heard in `room` at `at`; ignored while Herald speaks there or within the sense delay.
    public func heard(_ room: String, _ block: SpeechBandMeter.Block, at: ContinuousClock.Instant) {
        rooms.withLock { rooms in
            guard var state = rooms[room], state.holds == 0, at >= state.listenFrom ?? at else { return }
            if block.digitalSilence {
                state.silentBlocks += 1
                if state.silentBlocks == Self.digitalSilenceBlocks {
                    state.floor.reset()
                    state.problem = state.problem ?? Self.digitalSilence
                }
            } else {
                if state.silentBlocks >= Self.digitalSilenceBlocks, state.problem == Self.digitalSilence { state.problem = nil }
                state.silentBlocks = 0
            }
            if state.silentBlocks < Self.digitalSilenceBlocks { state.floor.add(block.dBFS) }
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
        let floor = state.problem == nil ? state.floor.floor : nil
        return NoiseReading(source: state.source, floorDBFS: floor,
                            gainDB: floor.map { NoiseLaw.gainDB(floorDBFS: $0, settings: state.settings) } ?? 0,
                            problem: state.problem ?? (state.source == nil ? "no source found yet" : nil))
    }
}

import HeraldCore
import Synchronization

/// Sound files decoded once and kept in memory while they are unchanged on disk: voice pack
/// words, chimes, cached sentences. A changed file (a shop owner records a new word) is decoded
/// again on its next use. Capped in bytes; the least recently used go first.
///
/// Checking a file costs one stat(2), microseconds; decoding a FLAC clip costs milliseconds.
public final class DecodedClips: Sendable {
    /// The process's store: 64 MiB holds the shipped packs and chimes many times over, and the
    /// cache's most used sentences.
    public static let shared = DecodedClips(capacityBytes: 64 << 20)

    public let capacityBytes: Int
    private let state = Mutex(State())

    private struct Entry {
        var stamp: FileStamp
        var clip: Clip
        var bytes: Int
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var tick: UInt64 = 0
        var hits = 0
        var misses = 0
    }

    public init(capacityBytes: Int) {
        self.capacityBytes = capacityBytes
    }

    /// The clip at `path` after `prepare` (silence trimming, say), decoded now only when it is
    /// not in memory or its file changed. `variant` names what `prepare` does, so one file
    /// prepared two ways is two entries.
    /// - Throws: what `SoundFileDecoder.decode` throws (a missing or unreadable file).
    public func clip(path: String, variant: String = "", prepare: (Clip) -> Clip = { $0 }) throws -> Clip {
        guard let stamp = FileStamp(path: path) else { return prepare(try SoundFileDecoder.decode(path: path)) }
        let key = variant + "\u{1F}" + path
        let cached: Clip? = state.withLock { state in
            state.tick += 1
            guard var entry = state.entries[key], entry.stamp == stamp else { return nil }
            entry.lastUse = state.tick
            state.entries[key] = entry
            state.hits += 1
            return entry.clip
        }
        if let cached { return cached }
        let clip = prepare(try SoundFileDecoder.decode(path: path))
        remember(clip, key: key, stamp: stamp)
        return clip
    }

    /// Bytes held, and how many lookups were served from memory and how many decoded.
    public var usage: (bytes: Int, hits: Int, misses: Int) {
        state.withLock { ($0.bytes, $0.hits, $0.misses) }
    }

    private func remember(_ clip: Clip, key: String, stamp: FileStamp) {
        let bytes = clip.samples.count * MemoryLayout<Float>.size
        state.withLock { state in
            state.misses += 1
            guard bytes <= capacityBytes / 4 else { return }  // a long recording would push out every word
            if let old = state.entries.removeValue(forKey: key) { state.bytes -= old.bytes }
            while state.bytes + bytes > capacityBytes,
                  let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.bytes -= oldest.value.bytes
                state.entries.removeValue(forKey: oldest.key)
            }
            state.tick += 1
            state.entries[key] = Entry(stamp: stamp, clip: clip, bytes: bytes, lastUse: state.tick)
            state.bytes += bytes
            // A gauge, so a soak can tell the store filling to its bound from memory that leaks.
            HeraldMetrics.decodedClips(bytes: state.bytes)
        }
    }
}

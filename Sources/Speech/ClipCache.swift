import Foundation
import HeraldCore
import RuntimePaths
import SoundFile
import Synchronization

/// Rendered speech on disk as FLAC, indexed (`ClipIndex`: SQLite in the daemon) with hit counts,
/// capped in bytes with least-recently-used eviction. The folder it makes is 0700 and the files 0600 (what a shop
/// said, and when, is the shop's).
public struct ClipCache: Sendable {
    public let directory: String
    public let maxBytes: Int64
    let index: any ClipIndex

    /// - Parameters:
    ///   - directory: the folder of the FLAC files, made private on the first store.
    ///   - maxBytes: the cap on the files' total size.
    ///   - index: which file holds which material, with the counts (`AppDatabase` in the daemon).
    public init(directory: String, maxBytes: Int64, index: any ClipIndex) {
        self.directory = directory
        self.maxBytes = maxBytes
        self.index = index
    }

    /// Everything that changes the sound, spelled out.
    public static func material(engine: String, request: SpeechRequest) -> String {
        [engine, request.voice, request.language, "\(request.rate)", "\(request.pitch)", request.text]
            .joined(separator: "\u{1F}")
    }

    /// FNV-1a, 64 bits, as hex: a short file name. The index stores the full material, so a
    /// collision is a miss, never the wrong clip.
    public static func key(for material: String) -> String {
        RuntimePaths.fnv1aHex(material)
    }

    /// The cached clip for `request`, or nil; the lookup is counted at once.
    public func clip(engine: String, request: SpeechRequest) async throws -> Clip? {
        let lookup = try await lookUp(engine: engine, request: request)
        lookup.count()
        return lookup.clip
    }

    /// The cached clip for `request`, or nil, and the count of this lookup (a hit, with the entry's
    /// last use, or a miss) for the caller to make once the first word is out: the count is a
    /// synced write, and made while the sink's restore journal is synced it would delay the first word.
    public func lookUp(engine: String, request: SpeechRequest) async throws -> (clip: Clip?, count: @Sendable () -> Void) {
        let material = Self.material(engine: engine, request: request)
        let key = Self.key(for: material)
        let index = self.index
        let countHit: @Sendable () -> Void = { index.countCacheLookup(key: key, hit: true, now: Date()) }
        let countMiss: @Sendable () -> Void = { index.countCacheLookup(key: key, hit: false, now: Date()) }
        let file = path("\(key).flac")
        // Seen by this process and still on disk: no read of the index, which would wait behind
        // the announcement's own log row being written.
        if Self.known.withLock({ $0[file] }) == material {
            if let clip = try? DecodedClips.shared.clip(path: file) { return (clip, countHit) }
            _ = Self.known.withLock { $0.removeValue(forKey: file) }
        }
        guard let record = try await index.cachedClip(key: key, material: material) else { return (nil, countMiss) }
        do {
            let clip = try DecodedClips.shared.clip(path: path(record.file))
            Self.remember(path(record.file), material)
            return (clip, countHit)
        } catch {
            // The file went missing or bad: forget it and render again.
            forget(record.file)
            try await index.removeCachedClip(key: key)
            return (nil, countMiss)
        }
    }

    /// The material of every cached file this process found or stored, by path: a clip whose
    /// file still exists is then found without a database read. A file removed by another
    /// process (eviction, `herald cache clear`) fails to decode and falls back to the index; one
    /// it replaced holds the same material (the same key), save a 64-bit hash collision.
    private static let known = Mutex<[String: String]>([:])

    /// Files another process removed are never forgotten here: past a bound, start afresh (it is
    /// only a shortcut; the index answers the rest).
    private static func remember(_ file: String, _ material: String) {
        known.withLock { known in
            if known.count >= 10_000 { known.removeAll() }
            known[file] = material
        }
    }

    /// Decodes the most used entries into memory (`DecodedClips.shared`), at most `limit` of
    /// them and about `bytes` of samples, so the first announcement of a known sentence after a
    /// start needs neither the index nor a decode. Returns how many were loaded; an entry that
    /// fails is left for its next lookup, which forgets it.
    public func preload(limit: Int, bytes: Int) async throws -> Int {
        var loaded: [String] = []
        var budget = bytes
        for record in try await index.mostUsedCachedClips(limit: limit) where budget > 0 {
            guard let clip = try? DecodedClips.shared.clip(path: path(record.file)) else { continue }
            Self.remember(path(record.file), record.material)
            budget -= clip.samples.count * MemoryLayout<Float>.size
            loaded.append(path(record.file))
        }
        // Used again from the least used up, so the most used is the last the memory store evicts.
        for file in loaded.reversed() { _ = try? DecodedClips.shared.clip(path: file) }
        return loaded.count
    }

    /// Stores `clip` (already trimmed) for `request`.
    public func store(_ clip: Clip, engine: String, request: SpeechRequest) async throws {
        guard clip.frameCount > 0 else { return }
        try PrivateFiles.makeFolder(directory)
        let material = Self.material(engine: engine, request: request)
        let key = Self.key(for: material)
        let file = "\(key).flac"
        let temporary = path("\(key).\(getpid()).tmp.flac")
        try SoundFileEncoder.write(clip, to: temporary, format: .flac)
        // rename(2) replaces atomically: a reader never sees half a file.
        guard rename(temporary, path(file)) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw SoundFileError.unwritable(path: path(file), reason: String(cString: strerror(errno)))
        }
        let bytes = ((try? FileManager.default.attributesOfItem(atPath: path(file)))?[.size] as? NSNumber)?.int64Value ?? 0
        let now = Date()
        let evicted = try await index.storeCachedClip(
            CachedClipRecord(key: key, material: material, file: file, bytes: bytes,
                             durationMilliseconds: clip.durationMilliseconds, hits: 0, createdAt: now, lastUsedAt: now),
            maxBytes: maxBytes)
        Self.remember(path(file), material)
        for old in evicted { forget(old.file) }
    }

    public func totals() async throws -> ClipCacheTotals { try await index.clipCacheTotals() }

    /// Deletes every cached clip; returns how many there were.
    @discardableResult
    public func clear() async throws -> Int {
        let removed = try await index.clearClipCache()
        for record in removed { forget(record.file) }
        return removed.count
    }

    /// Removes a cached file, and what this process knew of it.
    private func forget(_ file: String) {
        _ = Self.known.withLock { $0.removeValue(forKey: path(file)) }
        try? FileManager.default.removeItem(atPath: path(file))
    }

    private func path(_ file: String) -> String { (directory as NSString).appendingPathComponent(file) }
}


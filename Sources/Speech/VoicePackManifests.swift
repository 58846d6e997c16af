import Foundation
import HeraldCore
import Synchronization

/// Voice pack manifests read once and kept while their file is unchanged, as `DecodedClips` keeps
/// the packs' words: a payment looks its pack up (`VoicePack.find`) with one stat(2), not a read
/// and a JSON decode. A manifest written again (`herald pack build`) has a new stamp and is read
/// again on its next use.
public final class VoicePackManifests: Sendable {
    /// The process's manifests.
    public static let shared = VoicePackManifests()

    private let state = Mutex(State())

    private struct State {
        var entries: [String: (stamp: FileStamp, manifest: VoicePack.Manifest)] = [:]
        var reads = 0
    }

    public init() {}

    /// The manifest at `path`, read now only when it is not in memory or its file changed; nil
    /// when there is no file.
    /// - Throws: `VoicePackError.badManifest` for one that does not decode (read again next time).
    public func manifest(at path: String) throws(VoicePackError) -> VoicePack.Manifest? {
        guard let stamp = FileStamp(path: path) else { return nil }
        if let cached = state.withLock({ $0.entries[path] }), cached.stamp == stamp { return cached.manifest }
        let manifest = try VoicePack.Manifest(readingFrom: path)
        state.withLock { state in
            state.entries[path] = (stamp, manifest)
            state.reads += 1
        }
        return manifest
    }

    /// How many manifests were read from disk (not answered from memory).
    public var reads: Int { state.withLock { $0.reads } }
}

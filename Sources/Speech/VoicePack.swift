import Foundation
import HeraldCore
import SoundFile

/// A folder of short clips, one per word or character, from which amounts are composed with no
/// synthesis at all (as payment soundboxes do). `manifest.json` names a file for each token:
///
/// ```json
/// {"language": "en", "sample_rate": 22050, "gap_ms": 40, "clips": {"one": "one.flac", "payment received": "payment-received.flac"}}
/// ```
/// Replace any file with your own recording (any format libsndfile reads; it is converted to the
/// pack's rate and to mono when composed).
public struct VoicePack: Sendable {
    public struct Manifest: Codable, Sendable, Equatable {
        public var language: String
        public var sampleRate: Int
        public var gapMs: Int
        public var clips: [String: String]
        /// The engine that rendered it (`espeak-ng`, `piper:<model hash>`); nil for recordings.
        public var engine: String?

        public init(language: String, sampleRate: Int, gapMs: Int, clips: [String: String], engine: String? = nil) {
            self.language = language
            self.sampleRate = sampleRate
            self.gapMs = gapMs
            self.clips = clips
            self.engine = engine
        }

        /// The manifest in the file at `path`.
        init(readingFrom path: String) throws(VoicePackError) {
            guard let data = FileManager.default.contents(atPath: path) else { throw .noManifest(path) }
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            do {
                self = try decoder.decode(Manifest.self, from: data)
            } catch {
                throw .badManifest(path, "\(error)")
            }
        }
    }

    public let directory: String
    public let manifest: Manifest

    /// Reads `directory/manifest.json`.
    public init(directory: String) throws {
        self.directory = directory
        manifest = try Manifest(readingFrom: (directory as NSString).appendingPathComponent("manifest.json"))
    }

    init(directory: String, manifest: Manifest) {
        self.directory = directory
        self.manifest = manifest
    }

    /// The pack for `language` under `packsDirectory` (`Sounds/voices/en`), if there is one. Its
    /// manifest is read once while unchanged (`manifests`): this runs on every payment.
    public static func find(language: String, in packsDirectory: String,
                            manifests: VoicePackManifests = .shared) throws -> VoicePack? {
        let folder = (packsDirectory as NSString).appendingPathComponent(SpeechNames.baseLanguage(language))
        guard let manifest = try manifests.manifest(at: (folder as NSString).appendingPathComponent("manifest.json")) else {
            return nil
        }
        return VoicePack(directory: folder, manifest: manifest)
    }

    /// Tokens the pack has no clip for.
    public func missing(_ tokens: [String]) -> [String] {
        var seen = Set<String>()
        return tokens.filter { manifest.clips[$0] == nil && seen.insert($0).inserted }
    }

    /// The format composed amounts come in: the pack's rate, mono.
    public var format: AudioFormat { AudioFormat(sampleRate: manifest.sampleRate, channelCount: 1) }

    /// The tokens' clips joined with even gaps.
    /// - Throws: `VoicePackError` naming a missing token or an unreadable clip.
    public func compose(_ tokens: [String]) throws -> Clip {
        let clips = try tokens.map { token in
            guard let file = manifest.clips[token] else { throw VoicePackError.missingTokens([token]) }
            // In memory after the first payment; a word recorded again is read again.
            return try DecodedClips.shared.clip(path: (directory as NSString).appendingPathComponent(file),
                                                variant: "trimmed", prepare: SilenceTrimmer.trimmed)
        }
        return Clip.joined(clips, gapMilliseconds: manifest.gapMs, format: format)
    }

    /// Decodes every clip into memory (`DecodedClips`), so the first payment after a start
    /// composes as fast as the hundredth. Returns how many clips it read; a bad one is skipped
    /// here and reported when a payment needs it.
    @discardableResult
    public func preload() -> Int {
        manifest.clips.values.reduce(0) { count, file in
            let path = (directory as NSString).appendingPathComponent(file)
            let loaded = try? DecodedClips.shared.clip(path: path, variant: "trimmed", prepare: SilenceTrimmer.trimmed)
            return count + (loaded == nil ? 0 : 1)
        }
    }

    /// A file name for a token: ASCII words as they are, anything else as code points.
    public static func fileName(for token: String) -> String {
        let ascii = token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == " ") }
        let stem = ascii ? token.replacingOccurrences(of: " ", with: "-")
            : token.unicodeScalars.map { "u" + String($0.value, radix: 16) }.joined(separator: "-")
        return stem + ".flac"
    }
}

public enum VoicePackError: Error, Equatable, CustomStringConvertible {
    case noManifest(String)
    case badManifest(String, String)
    case missingTokens([String])
    /// A pack for a language whose numbers the voice reads itself and no pack grammar composes.
    case numbersFromTheVoice(String)

    public var description: String {
        switch self {
        case .noManifest(let path): "\(path): no voice pack manifest; build one with 'herald pack build LANG'"
        case .badManifest(let path, let detail): "\(path): not a valid voice pack manifest (\(detail))"
        case .missingTokens(let tokens): "the voice pack has no clip for \(tokens.map { "'\($0)'" }.joined(separator: ", "))"
        case .numbersFromTheVoice(let language):
            "amounts in \(language) are digits the voice reads by its own number rules: Herald has no grammar to compose them from clips yet, so its payments are synthesized"
        }
    }
}

import Crypto
import Foundation
import Synchronization

/// A Piper voice on disk: the `.onnx` model and the `.onnx.json` beside it.
public struct PiperVoiceModel: Sendable, Equatable, Codable {
    /// The file's stem, `en_US-joe-medium`: what `speech.voice` and the aliases name.
    public var name: String
    public var modelPath: String
    /// `en_US`.
    public var languageCode: String
    /// `en`: requests in another language go to espeak-ng.
    public var languageFamily: String
    public var sampleRate: Int
    public var bytes: Int
    /// The licence lines of the voice's MODEL_CARD, or what is known without one.
    public var licence: String

    /// Reads the model's JSON config (and MODEL_CARD, when there is one).
    /// - Throws: `PiperVoiceProblem` naming the file and what to do.
    public static func read(modelPath: String) throws -> PiperVoiceModel {
        let files = FileManager.default
        guard files.fileExists(atPath: modelPath) else { throw PiperVoiceProblem.noModel(modelPath) }
        let configPath = modelPath + ".json"
        guard let data = files.contents(atPath: configPath) else { throw PiperVoiceProblem.noConfig(configPath) }
        struct Config: Decodable {
            struct Audio: Decodable { var sample_rate: Int }
            struct Language: Decodable { var code: String?; var family: String? }
            var audio: Audio
            var language: Language?
        }
        let config: Config
        do { config = try JSONDecoder().decode(Config.self, from: data) } catch {
            throw PiperVoiceProblem.badConfig(configPath, "\(error)")
        }
        let name = ((modelPath as NSString).lastPathComponent as NSString).deletingPathExtension
        let code = config.language?.code ?? String(name.prefix { $0 != "-" })
        let family = config.language?.family ?? String(code.prefix { $0 != "_" })
        let size = ((try? files.attributesOfItem(atPath: modelPath))?[.size] as? Int) ?? 0
        return PiperVoiceModel(name: name, modelPath: modelPath, languageCode: code, languageFamily: family.lowercased(),
                               sampleRate: config.audio.sample_rate, bytes: size,
                               licence: licence(beside: modelPath))
    }

    /// The `License` lines of the MODEL_CARD beside the model (piper-voices ships one per voice).
    static func licence(beside modelPath: String) -> String {
        let card = ((modelPath as NSString).deletingLastPathComponent as NSString).appendingPathComponent("MODEL_CARD")
        guard let text = try? String(contentsOfFile: card, encoding: .utf8) else {
            return "no MODEL_CARD beside the model: see where the voice came from"
        }
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.localizedCaseInsensitiveContains("licen") || $0.localizedCaseInsensitiveContains("finetuned") }
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "*- ")) }
        return lines.isEmpty ? "MODEL_CARD names no licence: \(card)" : lines.joined(separator: "; ")
    }

    /// Voices installed under `folder` (Herald's `piper` folder): every `.onnx` with its `.json`
    /// in the virtual environment's packages (a voice installed from PyPI) and in `voices/`
    /// (a voice downloaded by hand), sorted by name.
    public static func installed(in folder: String) -> [PiperVoiceModel] {
        let files = FileManager.default
        var folders: [String] = []
        let lib = (folder as NSString).appendingPathComponent("lib")
        for python in (try? files.contentsOfDirectory(atPath: lib)) ?? [] where python.hasPrefix("python") {
            let packages = "\(lib)/\(python)/site-packages"
            for package in (try? files.contentsOfDirectory(atPath: packages)) ?? [] where !package.hasSuffix("-info") {
                folders += ["\(packages)/\(package)", "\(packages)/\(package)/data"]
            }
        }
        folders.append((folder as NSString).appendingPathComponent("voices"))
        return folders.flatMap(installed(inFolder:)).sorted { $0.name < $1.name }
    }

    private static let hashes = Mutex<[String: String]>([:])

    /// The first 16 hex digits of the model file's SHA-256, computed once per file, size and
    /// modification time: part of the cache key, so a replaced model never replays old clips.
    public static func hash(of path: String) -> String {
        // The file a link points to: replacing it must change the hash, as it changes what is said.
        let attributes = try? FileManager.default.attributesOfItem(atPath: (path as NSString).resolvingSymlinksInPath)
        let stamp = "\(path)|\((attributes?[.size] as? Int) ?? -1)|\((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        if let known = hashes.withLock({ $0[stamp] }) { return known }
        var hasher = SHA256()
        if let handle = FileHandle(forReadingAtPath: path) {
            defer { try? handle.close() }
            while let block = try? handle.read(upToCount: 1 << 20), !block.isEmpty { hasher.update(data: block) }
        }
        let hex = hasher.finalize().map { String(format: "%02x", $0) }.joined().prefix(16)
        hashes.withLock { $0[stamp] = String(hex) }
        return String(hex)
    }
}

/// What is wrong with a Piper voice on disk, and what to do.
public enum PiperVoiceProblem: Error, Equatable, CustomStringConvertible {
    case noModel(String)
    case noConfig(String)
    case badConfig(String, String)

    public var description: String {
        switch self {
        case .noModel(let path):
            "no Piper model \(path); install a voice with scripts/install-voice.sh, or give the path of a .onnx file"
        case .noConfig(let path): "no \(path) beside the model; a Piper voice is the .onnx and its .onnx.json, download both"
        case .badConfig(let path, let detail): "\(path) is not a Piper voice config: \(detail)"
        }
    }
}

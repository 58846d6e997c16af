import Foundation
import HeraldCore
import Synchronization

extension PiperSettings {
    /// With `model` set to the first voice installed in `folder` when none is given. Not done at
    /// every config load: listing the folder would slow every `herald say` of an espeak-ng user.
    public func resolved() -> PiperSettings {
        guard model.isEmpty else { return self }
        var settings = self
        settings.model = PiperVoiceModel.installed(in: folder).first?.modelPath ?? ""
        return settings
    }

    /// The voice that says `language` when no voice is asked for: "" (the default model) when the
    /// default speaks it, else the model path of an installed voice of that language (the tag's
    /// region first: es_MX for es-MX), or "" when none is, and espeak-ng says it.
    ///
    /// Voices are looked for in `folder` (those `scripts/install-voice.sh` installs, and
    /// `voices/`) and beside the default model.
    public func voice(forLanguage language: String) -> String {
        // From the cached listings only: this runs for every request Piper says.
        let installed = PiperVoiceModel.installedNow(in: folder)
        let model = self.model.isEmpty ? installed.first?.modelPath ?? "" : self.model
        let besideModel = PiperVoiceModel.installedNow(inFolder: (model as NSString).deletingLastPathComponent)
        let family = PiperVoiceModel.family(of: language)
        guard let defaultVoice = (besideModel + installed).first(where: { ($0.modelPath as NSString).standardizingPath == (model as NSString).standardizingPath }),
              defaultVoice.languageFamily != family else { return "" }
        let candidates = (installed + besideModel).filter { $0.languageFamily == family }
        let region = language.replacingOccurrences(of: "-", with: "_").lowercased()
        return (candidates.first { $0.languageCode.lowercased() == region } ?? candidates.first)?.modelPath ?? ""
    }
}

extension PiperVoiceModel {
    /// `es` for `es-MX`, `es_MX` or `ES`.
    public static func family(of language: String) -> String {
        String(language.lowercased().prefix { $0 != "-" && $0 != "_" })
    }

    /// The voices in one folder (a `.onnx` with its `.onnx.json`), sorted by name.
    static func installed(inFolder folder: String) -> [PiperVoiceModel] {
        let files = FileManager.default
        return ((try? files.contentsOfDirectory(atPath: folder)) ?? []).sorted()
            .map { (folder as NSString).appendingPathComponent($0) }
            .filter { $0.hasSuffix(".onnx") && files.fileExists(atPath: $0 + ".json") }
            .compactMap { try? read(modelPath: $0) }
    }

    private struct Listing { var stamp: [Double]; var voices: [PiperVoiceModel] }
    private static let listings = Mutex<[String: Listing]>([:])

    /// `installed(in:)` (or, with `inFolder`, one folder's voices) as the folders are now, read
    /// again only when a folder that holds voices changed: asked on every request in a language
    /// the default voice does not speak, it must not read every voice's JSON each time.
    static func installedNow(in folder: String) -> [PiperVoiceModel] {
        cached("piper:" + folder, watching: watchedFolders(of: folder)) { installed(in: folder) }
    }

    static func installedNow(inFolder folder: String) -> [PiperVoiceModel] {
        cached("folder:" + folder, watching: [folder]) { installed(inFolder: folder) }
    }

    private static func cached(_ key: String, watching folders: [String], list: () -> [PiperVoiceModel]) -> [PiperVoiceModel] {
        let stamp = folders.map { path -> Double in
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? -1
        }
        if let listing = listings.withLock({ $0[key] }), listing.stamp == stamp { return listing.voices }
        let voices = list()
        listings.withLock { $0[key] = Listing(stamp: stamp, voices: voices) }
        return voices
    }

    /// The folders whose entries change when a voice is installed in a Piper folder: `voices/`,
    /// and each Python's site-packages (a voice from PyPI is a new package folder there).
    private static func watchedFolders(of folder: String) -> [String] {
        let lib = (folder as NSString).appendingPathComponent("lib")
        let pythons = ((try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []).filter { $0.hasPrefix("python") }.sorted()
        return [(folder as NSString).appendingPathComponent("voices"), lib] + pythons.map { "\(lib)/\($0)/site-packages" }
    }
}

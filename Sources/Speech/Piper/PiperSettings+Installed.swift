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
        let family = SpeechNames.baseLanguage(language)
        let (model, voices) = modelAndVoices()
        guard let defaultVoice = PiperVoiceModel.listed(model), defaultVoice.languageFamily != family else { return "" }
        let candidates = voices.filter { $0.languageFamily == family }
        let region = language.replacingOccurrences(of: "-", with: "_").lowercased()
        return (candidates.first { $0.languageCode.lowercased() == region } ?? candidates.first)?.modelPath ?? ""
    }

    /// The voices Herald can choose from: the piper folder's, then those beside the default model.
    public var installedVoices: [PiperVoiceModel] { modelAndVoices().voices }

    /// The default model's path (the first installed voice when none is set) and the voices.
    private func modelAndVoices() -> (model: String, voices: [PiperVoiceModel]) {
        let installed = PiperVoiceModel.installedNow(in: folder)
        let model = self.model.isEmpty ? installed.first?.modelPath ?? "" : self.model
        return (model, installed + PiperVoiceModel.installedNow(inFolder: (model as NSString).deletingLastPathComponent))
    }
}

extension PiperVoiceModel {
    /// The voices in one folder (a `.onnx` with its `.onnx.json`), sorted by name.
    static func installed(inFolder folder: String) -> [PiperVoiceModel] {
        let files = FileManager.default
        return ((try? files.contentsOfDirectory(atPath: folder)) ?? []).sorted()
            .map { (folder as NSString).appendingPathComponent($0) }
            .filter { $0.hasSuffix(".onnx") && files.fileExists(atPath: $0 + ".json") }
            .compactMap { try? read(modelPath: $0) }
    }

    /// The voice of the model at `path` from its folder's cached listing; nil when it is not there
    /// (not a voice, or unreadable: the caller reads the file for the error).
    static func listed(_ path: String) -> PiperVoiceModel? {
        guard !path.isEmpty else { return nil }
        // Not NSString.standardizingPath: Foundation on Linux resolves symbolic links with it, and
        // two voices may be links to one file (a model shared by two configs).
        // (A listing's paths are its folder's and a name: the same form as `wanted`'s.)
        let wanted = URL(fileURLWithPath: path, isDirectory: false).standardized.path
        return installedNow(inFolder: (wanted as NSString).deletingLastPathComponent).first { $0.modelPath == wanted }
    }

    private struct Listing {
        /// The watched folders' modification times (seconds since 1970; -1: no such folder).
        var stamp: [Double]
        /// When this stamp was first seen.
        var stampSeenAt: ContinuousClock.Instant
        var listedAt: ContinuousClock.Instant
        var voices: [PiperVoiceModel]

        /// Listed more than 2 s after the stamp was first seen: whatever landed in the same clock
        /// tick as the change that made the stamp is in it.
        var settled: Bool { listedAt - stampSeenAt > .seconds(2) }
    }
    private static let listings = Mutex<[String: Listing]>([:])

    /// `installed(in:)` (or, with `inFolder`, one folder's voices) as the folders are now, read
    /// again when a folder that holds voices changed: this runs for every request Piper says, and
    /// must not read every voice's JSON each time.
    static func installedNow(in folder: String) -> [PiperVoiceModel] {
        cached("piper:" + folder, watching: watchedFolders(of: folder)) { installed(in: folder) }
    }

    static func installedNow(inFolder folder: String) -> [PiperVoiceModel] {
        cached("folder:" + folder, watching: [folder]) { installed(inFolder: folder) }
    }

    /// A listing is trusted while its folders' modification times are what they were and it is
    /// settled (a voice's second file can land in the same clock tick as its first, after a
    /// listing, leaving the time as it was: a listing made 2 s later has it), and for a minute
    /// at most (files inside a package's folder change no watched folder's time).
    private static func cached(_ key: String, watching folders: [String], list: () -> [PiperVoiceModel]) -> [PiperVoiceModel] {
        let now = ContinuousClock.now
        let stamp = folders.map(modificationTime)
        let previous = listings.withLock { $0[key] }
        if let previous, previous.stamp == stamp, previous.settled, now - previous.listedAt < .seconds(60) { return previous.voices }
        let seenAt = previous.flatMap { $0.stamp == stamp ? $0.stampSeenAt : nil } ?? now
        let voices = list()
        listings.withLock {
            $0[key] = Listing(stamp: stamp, stampSeenAt: seenAt, listedAt: now, voices: voices)
        }
        return voices
    }

    /// The modification time of `path` (of what a link points to), -1 when there is none: one
    /// stat(2), as this runs for every request.
    private static func modificationTime(_ path: String) -> Double {
        var info = stat()
        guard stat(path, &info) == 0 else { return -1 }
        return Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }

    /// The folders whose entries change when a voice is installed in a Piper folder: `voices/`,
    /// and each Python's site-packages (a voice from PyPI is a new package folder there).
    private static func watchedFolders(of folder: String) -> [String] {
        let lib = (folder as NSString).appendingPathComponent("lib")
        let pythons = ((try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []).filter { $0.hasPrefix("python") }.sorted()
        return [(folder as NSString).appendingPathComponent("voices"), lib] + pythons.map { "\(lib)/\($0)/site-packages" }
    }
}

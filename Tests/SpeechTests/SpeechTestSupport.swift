import Foundation
import HeraldCore
import Logging
import Speech

/// The test process ignores SIGPIPE as `herald`'s main does: the command engine and Piper write
/// to children that may exit without reading. Touched by the suites that run programs.
let ignoringSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN) }()

/// A temporary folder with its own cache, indexed in memory.
final class SpeechWorkspace {
    let folder = NSTemporaryDirectory() + "herald-speech-\(UUID().uuidString)"
    let index = MemoryClipIndex()

    init() {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    func cache(maxBytes: Int64 = 50_000_000) -> ClipCache {
        ClipCache(directory: folder + "/cache", maxBytes: maxBytes, index: index)
    }

    /// The repository's Sounds folder.
    static let sounds = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sounds").standardized.path

    func renderer(synthesizer: any Synthesizer = EspeakSynthesizer.shared) -> SpeechRenderer {
        var settings = SpeechSettings()
        settings.packsDirectory = Self.sounds + "/voices"
        return SpeechRenderer(settings: settings, synthesizer: synthesizer, cache: cache(),
                              logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
    }
}

func tone(milliseconds: Int, rate: Int = 8000) -> Clip {
    Clip(sampleRate: rate, channelCount: 1,
         samples: (0..<(rate * milliseconds / 1000)).map { Float(0.5 * sin(Double($0) * 0.3)) })
}

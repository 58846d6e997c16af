import Foundation
import HeraldCore
import SoundFile
import Speech

/// What the first announcement after a start would otherwise load, loaded before the daemon
/// serves: the espeak-ng library and its default voice, every voice pack's words and the
/// chimes, decoded into memory. The first payment is then as fast as the hundredth.
public enum Warmup {
    /// Loads everything it can; what fails is logged and loaded again when it is needed.
    /// - Returns: how many clips are in memory, and how long it took.
    @discardableResult
    public static func run(_ context: HeraldContext) async -> (clips: Int, duration: Duration) {
        let started = ContinuousClock.now
        let configuration = context.configuration
        var clips = 0
        let packs = configuration.speech.packsDirectory
        let languages = (try? FileManager.default.contentsOfDirectory(atPath: packs)) ?? []
        for language in languages.sorted() {
            let folder = (packs as NSString).appendingPathComponent(language)
            guard FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent("manifest.json")) else { continue }
            do { clips += try VoicePack(directory: folder).preload() } catch {
                context.logger.warning("voice pack \(folder) not loaded at start: \(error)")
            }
        }
        for path in Set(configuration.chimes.values) {
            do {
                _ = try DecodedClips.shared.clip(path: path)
                clips += 1
            } catch {
                context.logger.warning("chime \(path) not loaded at start: \(error)")
            }
        }
        if configuration.speech.engine == .espeakNG {
            // espeak_Initialize reads its data files and the voice on the first synthesis.
            let renderer = context.makeRenderer()
            do { _ = try await renderer.synthesizeWhole(renderer.request(text: "ready", language: nil, voice: nil)) } catch {
                context.logger.warning("espeak-ng not ready at start: \(error)")
            }
        }
        let duration = ContinuousClock.now - started
        context.logger.info("warmed up: \(clips) clips in memory, espeak-ng loaded, in \(duration)")
        return (clips, duration)
    }
}

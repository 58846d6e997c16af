import Foundation
import HeraldCore
import SoundFile
import Speech

/// What the first announcement after a start would otherwise load, loaded before the daemon
/// serves: the espeak-ng library and its default voice, every voice pack's words, the chimes
/// and the most used cached sentences, decoded into memory. The first payment is then as fast as the hundredth.
public enum Warmup {
    /// What the warm-up loaded.
    public struct Result: Sendable {
        /// Clips decoded into memory (pack words and chimes).
        public var clips: Int
        /// The format speech comes in (espeak-ng's, else the first voice pack's), which the
        /// daemon's warm stream takes; nil when neither could be loaded.
        public var speechFormat: AudioFormat?
        public var duration: Duration
    }

    /// Loads everything it can; what fails is logged and loaded again when it is needed.
    @discardableResult
    public static func run(_ context: HeraldContext) async -> Result {
        let started = ContinuousClock.now
        let configuration = context.configuration
        var clips = 0
        var speechFormat: AudioFormat?
        let packs = configuration.speech.packsDirectory
        let languages = (try? FileManager.default.contentsOfDirectory(atPath: packs)) ?? []
        for language in languages.sorted() {
            let folder = (packs as NSString).appendingPathComponent(language)
            guard FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent("manifest.json")) else { continue }
            do {
                let pack = try VoicePack(directory: folder)
                clips += pack.preload()
                if speechFormat == nil { speechFormat = pack.format }
            } catch {
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
        // The sentences said most often (a shop's "payment received", a hub's reminders), within
        // a quarter of the memory store: it keeps room for the packs and for what is said next.
        do {
            clips += try await context.clipCache.preload(limit: 64, bytes: DecodedClips.shared.capacityBytes / 4)
        } catch {
            context.logger.warning("cached sentences not loaded at start: \(error)")
        }
        if configuration.speech.engine != .command {
            // espeak_Initialize reads its data files and the voice on the first synthesis (Piper
            // hands espeak-ng what it cannot say, so it is loaded for Piper too).
            do {
                let clip = try await context.makeRenderer().synthesizeWhole(
                    SpeechRequest(text: "ready", language: "en", voice: EspeakSynthesizer.defaultVoice(language: "en"),
                                  rate: configuration.speech.rate, pitch: configuration.speech.pitch), on: EspeakSynthesizer.shared)
                speechFormat = AudioFormat(sampleRate: clip.sampleRate, channelCount: clip.channelCount)
            } catch {
                context.logger.warning("espeak-ng not ready at start: \(error)")
            }
        }
        // The amount grammar of the default language: ICU's spell-out takes up to a few ms to make.
        _ = try? AmountGrammars.grammar(for: configuration.speech.language)
        if configuration.speech.engine == .piper {
            // The model takes about a second to load; the process stays resident from now on.
            let speech = configuration.speech
            let synthesizer = speech.makeSynthesizer(logger: context.logger)
            let piper = synthesizer as? PiperSynthesizer
            await synthesizer.prepare()
            // The model's hash is part of every clip's cache key: read the file now, not at the first word.
            _ = synthesizer.engineName
            if let voice = try? piper?.model(named: "") {
                speechFormat = AudioFormat(sampleRate: voice.sampleRate, channelCount: 1)
            }
            // The voice speech.language's requests take, when it is not the default model (its
            // own Piper voice, or speech.voice): loaded by saying one word, hashed, and its format
            // the warm stream's.
            let ownVoice = speech.resolveVoice(nil, language: speech.language)
            if !ownVoice.isEmpty, let voice = try? piper?.model(named: ownVoice) {
                _ = synthesizer.engineName(voice: ownVoice)
                do {
                    let said = try await synthesizer.synthesize(SpeechRequest(text: "OK.", language: speech.language, voice: ownVoice,
                                                                              rate: speech.rate, pitch: speech.pitch))
                    for try await _ in said.chunks {}
                    speechFormat = AudioFormat(sampleRate: voice.sampleRate, channelCount: 1)
                } catch {
                    context.logger.warning("the Piper voice \(voice.name) of \(speech.language) not loaded at start: \(error)")
                }
            }
        }
        let duration = ContinuousClock.now - started
        context.logger.info("warmed up: \(clips) clips in memory, \(configuration.speech.engine.rawValue) loaded, in \(duration)")
        return Result(clips: clips, speechFormat: speechFormat, duration: duration)
    }
}

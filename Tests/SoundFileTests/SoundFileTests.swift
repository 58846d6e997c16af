import Foundation
import HeraldCore
import SoundFile
import Testing

@Suite struct SoundFileTests {
    /// 0.5 s of a 440 Hz tone at half scale, stereo.
    let tone: Clip = {
        let rate = 48_000
        var samples: [Float] = []
        for frame in 0..<(rate / 2) {
            let value = Float(0.5 * sin(2 * Double.pi * 440 * Double(frame) / Double(rate)))
            samples += [value, value]
        }
        return Clip(sampleRate: rate, channelCount: 2, samples: samples)
    }()

    func temporaryPath(_ suffix: String) -> String {
        NSTemporaryDirectory() + "herald-sound-\(UUID().uuidString).\(suffix)"
    }

    @Test(arguments: SoundFileEncoder.Format.allCases)
    func encodesAndDecodesEveryFormatThisLibsndfileHas(format: SoundFileEncoder.Format) throws {
        guard SoundFileEncoder.canWrite(format, sampleRate: tone.sampleRate, channelCount: 2) else {
            // MP3 and Opus depend on how libsndfile was built; Debian 12's has both.
            Issue.record("libsndfile here cannot write \(format)")
            return
        }
        let path = temporaryPath(format.rawValue)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try SoundFileEncoder.write(tone, to: path, format: format)
        let decoded = try SoundFileDecoder.decode(path: path)
        #expect(decoded.channelCount == 2)
        #expect(decoded.sampleRate == 48_000)
        // Lossy codecs pad the start and end; the length stays within 0.1 s.
        #expect(abs(decoded.durationMilliseconds - 500) < 100)
        let peak = decoded.samples.map(abs).max() ?? 0
        #expect(abs(peak - 0.5) < 0.1, "peak \(peak)")
    }

    @Test func aMissingFileIsNamed() {
        #expect(throws: SoundFileError.notFound(path: "/nonexistent.wav")) {
            try SoundFileDecoder.decode(path: "/nonexistent.wav")
        }
    }

    @Test func aFileThatIsNotSoundIsNamedWithLibsndfilesReason() throws {
        let path = temporaryPath("wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "this is not audio".write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try SoundFileDecoder.decode(path: path)
            Issue.record("text decoded as sound")
        } catch let error as SoundFileError {
            guard case .undecodable(let named, let reason) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(named == path)
            #expect(!reason.isEmpty)
        }
    }

    @Test func theShippedSampleDecodes() throws {
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sounds/samples/two-tone-chime.wav").standardized.path
        let clip = try SoundFileDecoder.decode(path: sample)
        #expect(clip.durationMilliseconds == 1200)
    }
}

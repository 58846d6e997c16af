import Foundation
import HeraldCore
import SoundFile
import Testing

@Suite struct DecodedClipsTests {
    func constant(_ value: Float, frames: Int) -> Clip {
        Clip(sampleRate: 16_000, channelCount: 1, samples: Array(repeating: value, count: frames))
    }

    func temporaryPath() -> String { NSTemporaryDirectory() + "herald-decoded-\(UUID().uuidString).wav" }

    @Test func aFileIsDecodedOnceAndAgainWhenItIsRecordedAgain() throws {
        let store = DecodedClips(capacityBytes: 1 << 20)
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try SoundFileEncoder.write(constant(0.25, frames: 1600), to: path, format: .wav)
        #expect(try store.clip(path: path).samples.first == 0.25)
        #expect(try store.clip(path: path).samples.first == 0.25)
        #expect(store.usage.hits == 1 && store.usage.misses == 1, "the second read came from memory")

        // A shop owner records the word again: same name, new sound (and a new inode, as an
        // editor's save-by-rename gives).
        let fresh = path + ".new.wav"
        try SoundFileEncoder.write(constant(0.5, frames: 1600), to: fresh, format: .wav)
        #expect(rename(fresh, path) == 0)
        #expect(try store.clip(path: path).samples.first == 0.5, "the new recording is used")
        #expect(store.usage.misses == 2)
    }

    @Test func theLeastRecentlyUsedGoFirstAndTheCapHolds() throws {
        let store = DecodedClips(capacityBytes: 16_000)  // room for four clips of 4,000 bytes
        let paths = (0..<5).map { _ in temporaryPath() }
        defer { for path in paths { try? FileManager.default.removeItem(atPath: path) } }
        for path in paths { try SoundFileEncoder.write(constant(0.1, frames: 1000), to: path, format: .wav) }
        for index in [0, 1, 2, 3, 0] { _ = try store.clip(path: paths[index]) }  // 1 is now the least recently used
        _ = try store.clip(path: paths[4])
        #expect(store.usage.bytes <= 16_000)
        #expect(store.usage.hits == 1 && store.usage.misses == 5)
        _ = try store.clip(path: paths[0])
        #expect(store.usage.hits == 2, "0 stayed")
        _ = try store.clip(path: paths[1])
        #expect(store.usage.misses == 6, "1 was evicted and decoded again")
    }

    @Test func aMissingFileFailsAsTheDecoderSays() {
        #expect(throws: (any Error).self) { try DecodedClips(capacityBytes: 1 << 20).clip(path: "/nonexistent/word.flac") }
    }
}

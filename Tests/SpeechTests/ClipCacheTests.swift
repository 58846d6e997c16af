import Foundation
import HeraldCore
import Speech
import Testing

@Suite struct ClipCacheTests {
    func request(_ text: String) -> SpeechRequest {
        SpeechRequest(text: text, language: "en", voice: "en-us", rate: 175, pitch: 50)
    }

    @Test func storesLooksUpAndCountsHits() async throws {
        let workspace = SpeechWorkspace()
        let cache = workspace.cache()
        #expect(try await cache.clip(engine: "espeak-ng", request: request("hello")) == nil)
        try await cache.store(tone(milliseconds: 300), engine: "espeak-ng", request: request("hello"))
        let hit = try #require(try await cache.clip(engine: "espeak-ng", request: request("hello")))
        #expect(abs(hit.durationMilliseconds - 300) <= 1)
        // Any part of the key changes the sound: a different rate or engine is a miss.
        var faster = request("hello")
        faster.rate = 200
        #expect(try await cache.clip(engine: "espeak-ng", request: faster) == nil)
        #expect(try await cache.clip(engine: "command", request: request("hello")) == nil)
        let totals = try await cache.totals()
        #expect(totals.entries == 1)
        #expect(totals.hits == 1 && totals.misses == 3)
        #expect(totals.hitRate == 0.25)
    }

    @Test func evictsTheLeastRecentlyUsedPastTheCap() async throws {
        let workspace = SpeechWorkspace()
        let probe = workspace.cache()
        try await probe.store(tone(milliseconds: 500), engine: "e", request: request("probe"))
        let oneClip = try await probe.totals().bytes
        try await probe.clear()
        // Room for two clips, not three.
        let cache = workspace.cache(maxBytes: oneClip * 2 + oneClip / 2)
        for text in ["a", "b"] {
            try await cache.store(tone(milliseconds: 500), engine: "e", request: request(text))
            try await Task.sleep(for: .milliseconds(5))
        }
        _ = try await cache.clip(engine: "e", request: request("a"))  // "a" is now the most recent
        try await cache.store(tone(milliseconds: 500), engine: "e", request: request("c"))
        #expect(try await cache.clip(engine: "e", request: request("b")) == nil, "least recently used evicted")
        #expect(try await cache.clip(engine: "e", request: request("a")) != nil)
        #expect(try await cache.clip(engine: "e", request: request("c")) != nil)
        let files = try FileManager.default.contentsOfDirectory(atPath: workspace.folder + "/cache")
        #expect(files.count == 2, "the evicted file is deleted: \(files)")
    }

    @Test func aDeletedFileIsAMissNotAnError() async throws {
        let workspace = SpeechWorkspace()
        let cache = workspace.cache()
        try await cache.store(tone(milliseconds: 200), engine: "e", request: request("x"))
        for file in try FileManager.default.contentsOfDirectory(atPath: workspace.folder + "/cache") {
            try FileManager.default.removeItem(atPath: workspace.folder + "/cache/" + file)
        }
        #expect(try await cache.clip(engine: "e", request: request("x")) == nil)
        #expect(try await cache.totals().entries == 0)
    }

    @Test func clearRemovesEverything() async throws {
        let workspace = SpeechWorkspace()
        let cache = workspace.cache()
        try await cache.store(tone(milliseconds: 200), engine: "e", request: request("x"))
        #expect(try await cache.clear() == 1)
        let totals = try await cache.totals()
        #expect(totals.entries == 0 && totals.bytes == 0 && totals.hits == 0 && totals.misses == 0)
    }

    @Test func theMostUsedSentencesAreLoadedAtStartWithinTheBudget() async throws {
        let workspace = SpeechWorkspace()
        let cache = workspace.cache()
        for text in ["rare", "often", "gone"] {
            try await cache.store(tone(milliseconds: 300), engine: "e", request: request(text))
        }
        for _ in 0..<3 { _ = try await cache.clip(engine: "e", request: request("often")) }
        for _ in 0..<2 { _ = try await cache.clip(engine: "e", request: request("gone")) }
        let order = try await workspace.index.mostUsedCachedClips(limit: 3).map(\.material)
        #expect(order == ["often", "gone", "rare"].map { ClipCache.material(engine: "e", request: request($0)) })
        let gone = ClipCache.key(for: ClipCache.material(engine: "e", request: request("gone")))
        try FileManager.default.removeItem(atPath: workspace.folder + "/cache/\(gone).flac")
        #expect(try await cache.preload(limit: 3, bytes: .max) == 2, "a file that is gone is skipped, not an error")
        #expect(try await cache.preload(limit: 3, bytes: 1) == 1, "the budget stops it after the most used one")
        #expect(try await cache.preload(limit: 1, bytes: .max) == 1)
    }
}

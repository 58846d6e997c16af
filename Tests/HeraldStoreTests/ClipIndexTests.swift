import Foundation
import HeraldCore
import HeraldStore
import Testing

/// The clip cache's index in SQLite (`AppDatabase: ClipIndex`); the cache over it is tested in
/// SpeechTests with an index in memory.
@Suite struct ClipIndexTests {
    let folder = NSTemporaryDirectory() + "herald-clip-index-\(UUID().uuidString)"

    func entry(_ key: String, bytes: Int64 = 100, at seconds: Double) -> CachedClipRecord {
        CachedClipRecord(key: key, material: "material of \(key)", file: "\(key).flac", bytes: bytes,
                         durationMilliseconds: 300, hits: 0, createdAt: Date(timeIntervalSince1970: seconds),
                         lastUsedAt: Date(timeIntervalSince1970: seconds))
    }

    @Test func findsByKeyAndMaterialAndCountsLookups() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let index: any ClipIndex = try AppDatabase(path: folder + "/herald.sqlite")
        _ = try await index.storeCachedClip(entry("a", at: 1000), maxBytes: 1000)
        #expect(try await index.cachedClip(key: "a", material: "material of a")?.file == "a.flac")
        #expect(try await index.cachedClip(key: "a", material: "another sentence") == nil, "a key collision is a miss")
        index.countCacheLookup(key: "a", hit: true, now: Date(timeIntervalSince1970: 2000))
        index.countCacheLookup(key: "b", hit: false, now: Date(timeIntervalSince1970: 2000))
        #expect(try await index.clipCacheTotals() == ClipCacheTotals(entries: 1, bytes: 100, hits: 1, misses: 1))
        let used = try #require(try await index.mostUsedCachedClips(limit: 1).first)
        #expect(used.hits == 1 && used.lastUsedAt == Date(timeIntervalSince1970: 2000))
    }

    @Test func evictsTheLeastRecentlyUsedButNeverTheNewEntry() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let index: any ClipIndex = try AppDatabase(path: folder + "/herald.sqlite")
        _ = try await index.storeCachedClip(entry("old", at: 1000), maxBytes: 250)
        _ = try await index.storeCachedClip(entry("used", at: 1001), maxBytes: 250)
        index.countCacheLookup(key: "old", hit: true, now: Date(timeIntervalSince1970: 1002))
        let evicted = try await index.storeCachedClip(entry("new", at: 1003), maxBytes: 250)
        #expect(evicted.map(\.key) == ["used"])
        #expect(try await index.storeCachedClip(entry("huge", bytes: 1000, at: 1004), maxBytes: 250).count == 2)
        #expect(try await index.clipCacheTotals().entries == 1)
    }

    @Test func ordersByUseAndClearsEntriesAndCounters() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let index: any ClipIndex = try AppDatabase(path: folder + "/herald.sqlite")
        for (number, key) in ["rare", "often", "gone"].enumerated() {
            _ = try await index.storeCachedClip(entry(key, at: 1000 + Double(number)), maxBytes: 10_000)
        }
        for _ in 0..<3 { index.countCacheLookup(key: "often", hit: true, now: Date(timeIntervalSince1970: 2000)) }
        index.countCacheLookup(key: "gone", hit: true, now: Date(timeIntervalSince1970: 2001))
        #expect(try await index.mostUsedCachedClips(limit: 3).map(\.key) == ["often", "gone", "rare"])
        try await index.removeCachedClip(key: "gone")
        #expect(try await index.clearClipCache().count == 2)
        #expect(try await index.clipCacheTotals() == ClipCacheTotals(entries: 0, bytes: 0, hits: 0, misses: 0))
    }
}

import Foundation
import HeraldCore
import HeraldStore
import Testing

/// The index of audio kept for listening back: what outlived `history.audio_retention` goes,
/// then the oldest past `history.audio_max_bytes` (never the newest), each with its reason.
@Suite struct KeptAudioIndexTests {
    func kept(_ id: String, bytes: Int64, at seconds: Double) -> KeptAudioRecord {
        KeptAudioRecord(announcementID: id, bytes: bytes, durationMilliseconds: 1000, chimeEndMilliseconds: 0, partial: false,
                        keptAt: Date(timeIntervalSince1970: seconds))
    }

    @Test func oldAudioGoesFirstThenTheOldestPastTheCap() async throws {
        let folder = NSTemporaryDirectory() + "herald-kept-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try AppDatabase(path: folder + "/herald.sqlite")
        for record in [kept("old", bytes: 10, at: 100), kept("a", bytes: 40, at: 1000), kept("b", bytes: 40, at: 2000),
                       kept("c", bytes: 40, at: 3000)] {
            try await database.keepAudio(record)
        }
        let now = Date(timeIntervalSince1970: 3100)
        let gone = try await database.pruneKeptAudio(keptBefore: Date(timeIntervalSince1970: 500), maxBytes: 90, now: now,
                                                     forgetBefore: nil, retention: "too old", cap: "too much")
        #expect(gone == ["old", "a"])
        let all = try await database.keptAudio(ids: ["old", "a", "b", "c", "never"])
        #expect(all["old"]?.goneBecause == "too old" && all["old"]?.goneAt == now)
        #expect(all["a"]?.goneBecause == "too much")
        #expect(all["b"]?.goneAt == nil && all["c"]?.goneAt == nil)
        #expect(all["never"] == nil)
        // The newest stays even when it alone is over the cap: it was just said.
        let capped = try await database.pruneKeptAudio(keptBefore: .distantPast, maxBytes: 1, now: now,
                                                       forgetBefore: Date(timeIntervalSince1970: 1500), retention: "", cap: "cap")
        #expect(capped == ["b"])
        let left = try await database.keptAudio(ids: ["old", "a", "b", "c"])
        #expect(left.keys.sorted() == ["b", "c"], "notes of audio gone long ago are forgotten with their rows")
        #expect(left["c"]?.goneAt == nil)
    }
}

import Foundation
import HeraldCore
@testable import HeraldStore
import Logging
import Synchronization
import Testing

/// The rows kept in memory while the database could not be written, on their way back to the
/// file: what is recorded or updated while `flush` copies must reach the file too.
@Suite struct AnnouncementStoreFlushTests {
    let folder = NSTemporaryDirectory() + "herald-flush-\(UUID().uuidString)"
    var databasePath: String { folder + "/state/herald.sqlite" }

    struct Unwritable: Error {}

    /// A store that starts degraded (as when the file could not be opened), its file to be made by `flush`.
    func degradedStore() -> AnnouncementStore {
        AnnouncementStore(path: databasePath, opened: .failure(Unwritable()), logger: Logger(label: "test"))
    }

    func row(_ body: String, requestID: String? = nil, at seconds: TimeInterval) -> AnnouncementRecord {
        AnnouncementRecord(requestID: requestID, client: "till-1", source: .api, priority: .normal,
                           bodyKind: .text, body: body, queuedAt: Date(timeIntervalSince1970: 1_000_000 + seconds))
    }

    @Test func rowsRecordedAndUpdatedDuringAFlushReachTheFile() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = degradedStore()
        let first = row("first", requestID: "r-1", at: 1)
        let second = row("second", requestID: "r-2", at: 2)
        #expect(try await store.insertIfNew(first))
        #expect(try await store.insertIfNew(second))

        // While the first row is being copied (the flush awaits the disk), a new row arrives, the
        // first one is played, and a repeat of the second's request id is refused.
        let late = row("late", requestID: "r-3", at: 3)
        let once = Mutex(false)
        let repeatRefused = Mutex<Bool?>(nil)
        await store.observeFlush { copied in
            guard copied.id == first.id, once.withLock({ done in defer { done = true }; return !done }) else { return }
            _ = try? await store.insertIfNew(late)
            var played = first
            played.outcome = .played
            played.finishedAt = Date(timeIntervalSince1970: 1_000_010)
            try? await store.record(played)
            let again = row("second again", requestID: "r-2", at: 4)
            let inserted = try? await store.insertIfNew(again)
            repeatRefused.withLock { $0 = inserted == false }
        }
        await store.flush()
        await store.observeFlush(nil)
        #expect(once.withLock { $0 }, "the observer ran during the copy")
        #expect(repeatRefused.withLock { $0 } == true, "a request id being copied is still claimed")
        #expect(await store.degraded == nil)

        // A new process reads the file: every row, the first one finished, each request id claimed.
        let file = try AppDatabase(path: databasePath)
        let rows = try await file.announcements(since: nil, outcome: nil, limit: 10)
        #expect(Set(rows.map(\.body)) == ["first", "second", "late"])
        #expect(rows.first { $0.id == first.id }?.outcome == .played, "the outcome written during the copy is kept")
        #expect(try await file.unfinished().map(\.body).sorted() == ["late", "second"],
                "the played row is not queued again at the next start")
        #expect(try await file.announcement(source: .api, client: "till-1", requestID: "r-3")?.id == late.id)
        #expect(try await store.insertIfNew(row("late again", requestID: "r-3", at: 5)) == false)
        #expect(try await store.unfinished().map(\.body) == ["second", "late"])
    }

    @Test func aFlushRecordsEveryRowWhenNothingHappensMeanwhile() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = degradedStore()
        for index in 0..<5 { _ = try await store.insertIfNew(row("row \(index)", requestID: "r-\(index)", at: Double(index))) }
        #expect(await store.flush() == 5)
        #expect(await store.degraded == nil)
        #expect(try await AppDatabase(path: databasePath).count() == 5)
        #expect(await store.flush() == 0, "healthy: nothing to do")
    }

    /// A signed reminder's signature, kept while the file could not be written, is still known
    /// once the buffer is in the file, and forgotten once it expires.
    @Test func aUsedSignatureKeptAsideReachesTheFileAndExpires() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = degradedStore()
        let now = Date()  // a flush copies what has not expired by the clock
        try await store.recordUsedSignature("mac-1", until: now.addingTimeInterval(600), now: now)
        #expect(try await store.signatureRecorded("mac-1", now: now))
        #expect(await store.flush() == 0, "no row, and still the signature is copied")
        #expect(await store.degraded == nil)
        let file = try AppDatabase(path: databasePath)
        #expect(try file.signatureUsedNow("mac-1", now: now), "in the file")
        #expect(try !file.signatureUsedNow("mac-1", now: now.addingTimeInterval(601)), "expired")
        #expect(try !file.signatureUsedNow("mac-2", now: now))
    }
}

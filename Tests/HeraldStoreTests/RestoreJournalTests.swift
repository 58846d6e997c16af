import Foundation
import GRDB
import HeraldCore
@testable import HeraldStore
import Logging
import Testing

/// The restore journal as the daemon keeps it: a synced file beside the database, a fallback in
/// the runtime folder when that cannot be written, and a row an earlier version left in SQLite.
@Suite struct RestoreJournalTests {
    let folder = NSTemporaryDirectory() + "herald-journal-\(UUID().uuidString)"
    var state: String { folder + "/state" }
    var databasePath: String { state + "/herald.sqlite" }
    var fallbackPath: String { folder + "/run/safeguard.lock.journal.json" }

    let entry = JournalEntry(
        sinkName: "speaker", originalVolumes: ChannelVolumes([Volume(percent: 30), Volume(percent: 10)]),
        originalMuted: true, setVolumes: ChannelVolumes([Volume(percent: 70), Volume(raw: 15292)]), unmuted: true,
        ducks: [DuckPlan(streamIndex: 4, original: ChannelVolumes([Volume(percent: 80)]),
                         held: ChannelVolumes([Volume(percent: 40)]), ducked: ChannelVolumes([Volume(percent: 12)]),
                         silenced: false, applicationName: "radio")],
        processID: 99)

    /// A store as a new process opens it (after a crash, say).
    func openStore() -> AnnouncementStore {
        AnnouncementStore(path: databasePath, opened: Result { try AppDatabase(path: databasePath) },
                          journalFallback: fallbackPath, logger: Logger(label: "test"))
    }

    @Test func aSavedJournalIsFoundByTheNextProcessAndClearedEverywhere() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = openStore()
        #expect(try await store.pending() == nil)
        try await store.save(entry)
        let journalFile = databasePath + ".restore-journal"
        #expect(FileManager.default.fileExists(atPath: journalFile), "the journal is a file beside the database")
        #expect(!FileManager.default.fileExists(atPath: fallbackPath))
        #expect(try await openStore().pending() == entry)
        try await store.clear()
        #expect(try await openStore().pending() == nil)
        #expect(try await store.pending() == nil)
    }

    @Test func aStateFolderThatIsGoneSendsTheJournalToTheFallbackAndBackAfter() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = openStore()
        try await store.save(entry)
        // The folder replaced by a file: the journal cannot be written beside the database.
        try FileManager.default.removeItem(atPath: state)
        FileManager.default.createFile(atPath: state, contents: Data("in the way".utf8))
        var raised = entry
        raised.setVolumes = ChannelVolumes([Volume(percent: 90), Volume(percent: 90)])
        try await store.save(raised)
        #expect(FileManager.default.fileExists(atPath: fallbackPath), "written to the fallback")
        #expect(try await openStore().pending() == raised, "a new process finds the newest entry")
        // The folder back: the next write goes beside the database, and the fallback is removed.
        try FileManager.default.removeItem(atPath: state)
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try await store.save(entry)
        #expect(!FileManager.default.fileExists(atPath: fallbackPath), "an older fallback is removed")
        #expect(try await openStore().pending() == entry)
        try await store.clear()
        #expect(try await openStore().pending() == nil)
    }

    @Test func aRowAnEarlierVersionLeftInTheDatabaseIsRestoredThenCleared() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try AppDatabase(path: databasePath)
        try await database.writer.write { [entry] db in try JournalRow(entry: entry, writtenAt: Date()).save(db) }
        let store = openStore()
        #expect(try await store.pending() == entry)
        try await store.clear()
        #expect(try await database.pending() == nil)
        #expect(try await openStore().pending() == nil)
    }

    @Test func anUnreadableJournalFileIsIgnoredNotFatal() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = openStore()
        // Longer than any entry: a write in place must not leave its tail behind.
        try Data(("{ torn" + String(repeating: " x", count: 2000)).utf8)
            .write(to: URL(fileURLWithPath: databasePath + ".restore-journal"))
        #expect(try await store.pending() == nil)
        try await store.save(entry)
        #expect(try await openStore().pending() == entry, "no tail of the torn one is left")
    }
}

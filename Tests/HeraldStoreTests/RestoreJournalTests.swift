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

    /// The journal as a new process opens it (after a crash, say).
    func openStore() -> RestoreJournalStore {
        RestoreJournalStore(databasePath: databasePath, fallback: fallbackPath, database: try? AppDatabase(path: databasePath),
                            logger: Logger(label: "test"))
    }

    @Test func aSavedJournalIsFoundByTheNextProcessAndClearedEverywhere() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = openStore()
        #expect(try await store.pending().isEmpty)
        try await store.save(entry)
        #expect(FileManager.default.fileExists(atPath: databasePath + ".restore-journal.0"), "a file beside the database")
        #expect(!FileManager.default.fileExists(atPath: fallbackPath + ".0"))
        #expect(try await openStore().pending() == [entry])
        try await store.clear(sinkName: "speaker")
        #expect(try await openStore().pending().isEmpty)
        #expect(try await store.pending().isEmpty)
    }

    @Test func aStateFolderThatIsGoneSendsTheJournalToTheFallbackAndBackAfter() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = openStore()
        try await store.save(entry)
        // The folder replaced by a file: the journal cannot be written beside the database.
        try FileManager.default.removeItem(atPath: state)
        #expect(FileManager.default.createFile(atPath: state, contents: Data("in the way".utf8)))
        var raised = entry
        raised.setVolumes = ChannelVolumes([Volume(percent: 90), Volume(percent: 90)])
        try await store.save(raised)
        #expect(FileManager.default.fileExists(atPath: fallbackPath + ".0"), "written to the fallback")
        #expect(try await openStore().pending() == [raised], "a new process finds the newest entry")
        // The folder back: the next write goes beside the database, and the fallback is removed.
        try FileManager.default.removeItem(atPath: state)
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try await store.save(entry)
        #expect(!FileManager.default.fileExists(atPath: fallbackPath + ".0"), "an older fallback is removed")
        #expect(try await openStore().pending() == [entry])
        try await store.clear(sinkName: "speaker")
        #expect(try await openStore().pending().isEmpty)
    }

    @Test func aRowAnEarlierVersionLeftInTheDatabaseIsRestoredThenCleared() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try AppDatabase(path: databasePath)
        try await database.writer.write { [entry] db in try JournalRow(entry: entry, writtenAt: Date()).save(db) }
        let store = openStore()
        #expect(try await store.pending() == [entry])
        #expect(try database.legacyJournalRowNow() == nil, "taken over into the journal's file")
        #expect(try await openStore().pending() == [entry], "and still pending for the next process")
        try await store.clear(sinkName: "speaker")
        #expect(try await openStore().pending().isEmpty)
    }

    @Test func aRecordTornByACrashLeavesThePreviousEntryWhole() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = openStore()
        try await store.save(entry)
        var reported = entry
        reported.setVolumes = ChannelVolumes([Volume(raw: 45_000), Volume(raw: 45_000)])
        try await store.save(reported)
        #expect(try await openStore().pending() == [reported])
        // The second write cut off half-way: the first entry, in the other file, is whole.
        let second = databasePath + ".restore-journal.1"
        let whole = try #require(FileManager.default.contents(atPath: second))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: second))
        #expect(try await openStore().pending() == [entry])
        // The next write goes over the torn one, and wins.
        try await store.save(reported)
        #expect(try await openStore().pending() == [reported])
        try await store.clear(sinkName: "speaker")
        #expect(try await openStore().pending().isEmpty)
    }

    @Test func aJournalKeptInMemoryReachesItsFileOnceItCanBeWritten() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = openStore()
        // Neither the state folder nor the runtime folder can take a file.
        try FileManager.default.removeItem(atPath: state)
        #expect(FileManager.default.createFile(atPath: state, contents: Data("in the way".utf8)))
        #expect(FileManager.default.createFile(atPath: folder + "/run", contents: Data("in the way".utf8)))
        try await store.save(entry)
        #expect(try await store.pending() == [entry], "kept in memory")
        #expect(try await openStore().pending().isEmpty, "nothing another process could read")
        try FileManager.default.removeItem(atPath: state)
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        await store.retry()
        #expect(try await openStore().pending() == [entry], "written to its file by the retry")
        try await store.clear(sinkName: "speaker")
        #expect(try await openStore().pending().isEmpty)
    }

    @Test func aRecordWhoseBodyDoesNotMatchItsChecksumIsSkipped() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = openStore()
        try await store.save(entry)
        // A higher sequence, the right length, one byte of the body changed.
        var copy = try #require(FileManager.default.contents(atPath: databasePath + ".restore-journal.0"))
        let text = String(decoding: copy, as: UTF8.self).replacingOccurrences(of: "herald-journal 1 ", with: "herald-journal 9 ")
        copy = Data(text.utf8)
        let last = copy.index(before: copy.endIndex)
        copy[copy.index(before: last)] ^= 0x01
        try copy.write(to: URL(fileURLWithPath: databasePath + ".restore-journal.1"))
        #expect(try await openStore().pending() == [entry])
    }

    @Test func anOlderRecordLeftInTheFallbackNeverHidesANewerOne() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = openStore()
        try await store.save(entry)
        let older = try #require(FileManager.default.contents(atPath: databasePath + ".restore-journal.0"))
        var raised = entry
        raised.setVolumes = ChannelVolumes([Volume(percent: 95), Volume(percent: 95)])
        try await store.save(raised)
        // As if the fallback kept a record this process could not remove.
        try FileManager.default.createDirectory(atPath: folder + "/run", withIntermediateDirectories: true)
        try older.write(to: URL(fileURLWithPath: fallbackPath + ".0"))
        #expect(try await openStore().pending() == [raised])
        try await store.clear(sinkName: "speaker")
        #expect(try await openStore().pending().isEmpty, "the clear is newer than both")
    }

    @Test func aJournalInTheFallbackMovesBackToItsFileOnceItCanBeWritten() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = openStore()
        try FileManager.default.removeItem(atPath: state)
        #expect(FileManager.default.createFile(atPath: state, contents: Data("in the way".utf8)))
        try await store.save(entry)
        #expect(FileManager.default.fileExists(atPath: fallbackPath + ".0"))
        try FileManager.default.removeItem(atPath: state)
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        await store.retry()
        #expect(FileManager.default.fileExists(atPath: databasePath + ".restore-journal.0"), "moved back")
        #expect(!FileManager.default.fileExists(atPath: fallbackPath + ".0"), "and the fallback removed")
        #expect(try await openStore().pending() == [entry])
    }

    @Test func anUnreadableJournalFileIsIgnoredNotFatal() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = openStore()
        try Data("herald-journal 7 3 0\n{ x".utf8).write(to: URL(fileURLWithPath: databasePath + ".restore-journal.0"))
        try Data("not a record at all".utf8).write(to: URL(fileURLWithPath: databasePath + ".restore-journal.1"))
        #expect(try await store.pending().isEmpty)
        try await store.save(entry)
        #expect(try await openStore().pending() == [entry])
    }

    @Test func eachSinkHasItsEntryAndIsClearedAlone() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = openStore()
        var kitchen = entry
        kitchen.sinkName = "kitchen"
        try await store.save(entry)
        try await store.save(kitchen)
        #expect(try await openStore().pending() == [kitchen, entry], "both rooms, by sink name")
        var raised = entry
        raised.setVolumes = ChannelVolumes([Volume(percent: 95), Volume(percent: 95)])
        try await store.save(raised)
        #expect(try await openStore().pending() == [kitchen, raised], "a save replaces only its sink's entry")
        try await store.clear(sinkName: "speaker")
        #expect(try await openStore().pending() == [kitchen], "the other room is still pending")
        try await store.clear(sinkName: "speaker")
        #expect(try await openStore().pending() == [kitchen], "clearing a sink twice leaves the rest")
        try await store.clear(sinkName: "kitchen")
        #expect(try await openStore().pending().isEmpty)
    }

    @Test func aJournalAnEarlierVersionWroteWithOneEntryIsRead() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try JournalFile(path: databasePath + ".restore-journal", makesFolder: false)
            .put(try JSONEncoder().encode(entry), sequence: 1, newest: nil)
        let store = openStore()
        #expect(try await store.pending() == [entry])
        try await store.clear(sinkName: "speaker")
        #expect(try await openStore().pending().isEmpty)
    }
}

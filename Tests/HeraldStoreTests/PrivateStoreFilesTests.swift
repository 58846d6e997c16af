import Foundation
import HeraldCore
import HeraldStore
import Logging
import Testing

/// What the store creates is its user's alone, whatever the umask of the process using it as a
/// library: folders 0700, the database, its SQLite journal, the migration lock and the restore
/// journal (beside the database and in the fallback) 0600. What exists keeps its mode.
@Suite(.serialized) struct PrivateStoreFilesTests {
    let folder = NSTemporaryDirectory() + "herald-private-\(UUID().uuidString)"

    func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int, "\(path)")
    }

    let entry = JournalEntry(sinkName: "speaker", originalVolumes: ChannelVolumes([Volume(percent: 30)]), originalMuted: true,
                             setVolumes: ChannelVolumes([Volume(percent: 70)]), unmuted: true, ducks: [], processID: 99)

    @Test func everythingTheStoreCreatesIsPrivateUnderAWideUmask() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let previous = umask(0o022)  // a library user's usual umask; Herald must not rely on its own
        defer { umask(previous) }
        let state = folder + "/home/.local/state/herald"
        let database = state + "/herald.sqlite"
        let fallback = folder + "/run/herald/safeguard.lock.journal"
        let opened = try AppDatabase(path: database)
        try await opened.checkWritable(now: Date())
        let journal = RestoreJournalStore(databasePath: database, fallback: fallback, database: opened, logger: Logger(label: "test"))
        try await journal.save(entry)
        // The fallback, as when the state folder cannot take the journal.
        let fallbackJournal = RestoreJournalStore(databasePath: folder + "/nowhere/herald.sqlite", fallback: fallback, database: nil,
                                                  logger: Logger(label: "test"))
        try await fallbackJournal.save(entry)

        for made in [folder + "/home", folder + "/home/.local", folder + "/home/.local/state", state, folder + "/run", folder + "/run/herald"] {
            #expect(try mode(made) == 0o700, "\(made)")
        }
        let files = [database, database + "-journal", database + ".migrate-lock", database + ".restore-journal.0", fallback + ".0"]
        for file in files {
            #expect(FileManager.default.fileExists(atPath: file), "\(file) was made")
            #expect(try mode(file) == 0o600, "\(file)")
        }
        // Nothing else was made that escaped the list above.
        let everything = try FileManager.default.subpathsOfDirectory(atPath: state).map { state + "/" + $0 }
        for path in everything { #expect(try mode(path) == 0o600, "\(path)") }
    }

    @Test func anExistingFolderAndDatabaseKeepTheirModes() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let previous = umask(0o022)
        defer { umask(previous) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let database = folder + "/herald.sqlite"
        _ = try AppDatabase(path: database)
        #expect(try mode(database) == 0o600)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: database)
        let reopened = try AppDatabase(path: database)
        try await reopened.checkWritable(now: Date())
        #expect(try mode(folder) == 0o755, "shared on purpose, perhaps: herald doctor warns, Herald does not change it")
        #expect(try mode(database) == 0o644)
    }
}

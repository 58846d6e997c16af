import Foundation
import HeraldCore
@testable import HeraldStore
import Testing

@Suite struct AppDatabaseTests {
    /// A real SQLite file in a temporary folder.
    func makeDatabase() throws -> (AppDatabase, String) {
        let folder = NSTemporaryDirectory() + "herald-store-\(UUID().uuidString)"
        let path = folder + "/nested/herald.sqlite"
        return (try AppDatabase(path: path), folder)
    }

    @Test func announcementsRoundTripNewestFirst() async throws {
        let (database, folder) = try makeDatabase()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var first = AnnouncementRecord(source: .cli, priority: .high, bodyKind: .file, body: "a.wav",
                                       queuedAt: Date(timeIntervalSince1970: 1000))
        first.volumeBefore = ChannelVolumes([Volume(percent: 30), Volume(percent: 10)])
        first.volumePlayed = ChannelVolumes([Volume(percent: 70), Volume(raw: 15292)])
        first.mutedBefore = true
        first.streamsDucked = 2
        first.outcome = .played
        first.onsetLatencyMilliseconds = 12
        first.requestID = "till-7/0042"
        var second = AnnouncementRecord(source: .cli, priority: .normal, bodyKind: .file, body: "b.wav",
                                        queuedAt: Date(timeIntervalSince1970: 2000))
        second.outcome = .failed
        second.error = "no such file"
        try await database.record(first)
        try await database.record(second)
        let rows = try await database.recent(limit: 10)
        #expect(rows.map(\.body) == ["b.wav", "a.wav"])
        #expect(rows[1] == first)
        #expect(try await database.count(outcome: .failed) == 1)
        #expect(try await database.recent(limit: 1).count == 1)
    }
}

/// The lock that serializes migrations between processes: a signal during the wait (EINTR) does
/// not let the migration run unlocked, and a lock that cannot be taken is an error that says so.
@Suite struct MigrationLockTests {
    @Test func anInterruptedWaitGoesOnWaiting() throws {
        var calls = 0
        try AppDatabase.lockExclusively(7, database: "/tmp/x.sqlite") { descriptor, operation in
            #expect(descriptor == 7 && operation == LOCK_EX)
            calls += 1
            guard calls >= 3 else {
                errno = EINTR
                return -1
            }
            return 0
        }
        #expect(calls == 3, "twice interrupted, then taken")
    }

    @Test func aLockThatCannotBeTakenIsAnError() {
        #expect {
            try AppDatabase.lockExclusively(7, database: "/srv/herald.sqlite") { _, _ in
                errno = ENOLCK
                return -1
            }
        } throws: { error in
            let text = "\(error)"
            return text.contains("/srv/herald.sqlite.migrate-lock") && text.contains(String(cString: strerror(ENOLCK)))
        }
    }
}

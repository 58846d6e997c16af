import Foundation
import HeraldCore
@testable import HeraldStore
import Logging
import Testing

/// Rows the database could not take (its disk full) are kept in the runtime folder, so a crash
/// before the disk has room again does not lose them: the next process says and logs them.
@Suite struct AnnouncementStoreOverflowTests {
    let folder = NSTemporaryDirectory() + "herald-overflow-\(UUID().uuidString)"
    var databasePath: String { folder + "/state/herald.sqlite" }
    var overflowPrefix: String { folder + "/run/log-overflow-test" }

    struct DiskFull: Error {}

    func row(_ body: String, requestID: String, at seconds: TimeInterval) -> AnnouncementRecord {
        AnnouncementRecord(requestID: requestID, client: "till-1", source: .api, priority: .normal,
                           bodyKind: .payment, body: body, queuedAt: Date(timeIntervalSince1970: 1_000_000 + seconds))
    }

    /// The overflow files now, renamed as a process that is gone would have left them.
    func leaveAsCrashed() throws -> [String] {
        let run = folder + "/run"
        var left: [String] = []
        // With its write-ahead log: a kill -9 leaves both. A pid above the kernel's largest: no process has it.
        for name in try FileManager.default.contentsOfDirectory(atPath: run) {
            let crashed = name.replacingOccurrences(of: ".\(getpid()).", with: ".2147483000.")
            try FileManager.default.moveItem(atPath: run + "/" + name, toPath: run + "/" + crashed)
            if crashed.hasSuffix(".sqlite") { left.append(crashed) }
        }
        return left
    }

    @Test func rowsAcceptedWhileTheDiskIsFullSurviveACrash() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let logger = Logger(label: "test")
        let full = AnnouncementStore(path: databasePath, opened: .failure(DiskFull()), overflowPrefix: overflowPrefix, logger: logger)
        let payment = row("25.30 USD", requestID: "order-1", at: 1)
        #expect(try await full.insertIfNew(payment))
        var played = row("12.00 USD", requestID: "order-2", at: 2)
        #expect(try await full.insertIfNew(played))
        played.outcome = .played
        try await full.record(played)

        // kill -9: nothing is flushed. The disk has room again when the next process starts.
        #expect(try leaveAsCrashed().count == 1)
        let next = AnnouncementStore(path: databasePath, opened: .success(try AppDatabase(path: databasePath)),
                                     overflowPrefix: overflowPrefix, logger: logger)
        let unfinished = try await next.unfinished()
        #expect(unfinished.map(\.requestID) == ["order-1"], "the accepted, unsaid payment is said again")
        #expect(try await next.insertIfNew(row("25.30 USD", requestID: "order-1", at: 3)) == false,
                "its request id is still claimed: a repeat is a duplicate")
        #expect(await next.flush() == 2)
        #expect(await next.degraded == nil)
        let file = try AppDatabase(path: databasePath)
        let rows = try await file.announcements(since: nil, outcome: nil, limit: 10)
        #expect(Set(rows.map(\.requestID)) == ["order-1", "order-2"])
        #expect(rows.first { $0.requestID == "order-2" }?.outcome == .played)
        let remaining = try FileManager.default.contentsOfDirectory(atPath: folder + "/run")
        #expect(remaining.isEmpty, "the copied files are removed: \(remaining)")
    }

    @Test func theFilesOfARunningProcessAreLeftToIt() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let logger = Logger(label: "test")
        let full = AnnouncementStore(path: databasePath, opened: .failure(DiskFull()), overflowPrefix: overflowPrefix, logger: logger)
        #expect(try await full.insertIfNew(row("25.30 USD", requestID: "order-1", at: 1)))
        // This process is alive: its file is its own, not a crashed one's.
        let other = AnnouncementStore(path: databasePath, opened: .success(try AppDatabase(path: databasePath)),
                                      overflowPrefix: overflowPrefix, logger: logger)
        #expect(await other.degraded == nil)
        #expect(try await other.unfinished().isEmpty)
    }
}

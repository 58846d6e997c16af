import Foundation

/// The id of the last announcement heard to its end, written and synced (0.2 ms) the moment its
/// playback drained, before its row's outcome (a SQLite commit, tens of milliseconds later).
///
/// A `kill -9` between the last sample and that commit left a row with no outcome, and the next
/// start said the whole announcement again (9 of 20 kills aimed at the last 40 ms, issue 27). The
/// next start reads this mark and logs that row `played` instead. Kept in the same two-file form
/// as the restore journal (`JournalFile`: a torn write leaves the previous mark whole), beside
/// the database as `<database>.said.0` and `.1`. Never cleared: a mark whose row has its outcome
/// is simply not looked at.
public struct SaidMark: Sendable {
    let file: JournalFile

    public init(databasePath: String) {
        file = JournalFile(path: databasePath + ".said", makesFolder: false)
    }

    /// Marks `id` heard to its end, synced before it returns.
    /// - Throws: when the folder cannot be written (a full disk): the row is then said again after
    ///   a crash in this window, as before.
    public func mark(_ id: String) throws {
        let newest = file.newest()
        try file.put(Data(id.utf8), sequence: (newest?.sequence ?? 0) + 1, newest: newest)
    }

    /// The id last marked, if any.
    public func marked() -> String? {
        guard let entry = file.newest()?.entry, !entry.isEmpty else { return nil }
        return String(decoding: entry, as: UTF8.self)
    }
}

import Foundation
import RuntimePaths
#if canImport(Glibc)
import Glibc
#endif

/// A restore journal kept in two small files, `<path>.0` and `<path>.1`, written in turn and
/// synced before `write` returns.
///
/// Why files and not a row in the SQLite log: the synced commit took 0.7 to 1.1 ms before the
/// unmute of every announcement on a muted or quiet sink; writing and syncing a small file in
/// place takes 0.2 ms on the same disk. Why two: a file written in place can be torn by a crash
/// or a power cut mid-write, and the entry is rewritten while the sink is already raised (the
/// volumes the device reported, a stream that appeared). Each write goes to the file that does not
/// hold the newest record, so the other one keeps the previous entry whole. A record is a header
/// (sequence number, length, checksum) and the entry's JSON; a torn one fails its checksum.
///
/// The files are opened by path at every write (no descriptor kept), so a folder removed under
/// the daemon fails the write instead of taking it into a deleted inode.
struct JournalFile: Sendable {
    let path: String
    /// Make the folder when it is missing (the runtime folder, for the fallback); false for the
    /// state folder, whose disappearance must be noticed rather than papered over.
    let makesFolder: Bool

    /// One record as read back: its sequence number and the entry (empty: cleared).
    private struct Record {
        var slot: Int
        var sequence: UInt64
        var entry: Data
    }

    /// Writes `entry` as the newest record, synced.
    func write(_ entry: Data) throws {
        precondition(!entry.isEmpty, "an empty record means cleared")
        try put(entry)
    }

    /// The newest entry; nil when there is none, it was cleared, or neither record is whole.
    func read() -> Data? {
        guard let newest = newest(), !newest.entry.isEmpty else { return nil }
        return newest.entry
    }

    /// Records that the journal is clear (synced: a clear lost in a power cut would restore a
    /// finished announcement). Writes nothing when it is clear already.
    func clear() throws {
        guard read() != nil else { return }
        try put(Data())
    }

    /// Removes both files (a fallback, once the journal is back where it belongs); false when a
    /// file that exists could not be removed.
    @discardableResult
    func remove() -> Bool {
        (0...1).allSatisfy { unlink(slotPath($0)) == 0 || errno == ENOENT || errno == ENOTDIR }
    }

    private func put(_ entry: Data) throws {
        if makesFolder {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
        }
        let newest = newest()
        let slot = newest.map { 1 - $0.slot } ?? 0
        var record = Data(Self.header(sequence: (newest?.sequence ?? 0) + 1, entry: entry).utf8)
        record.append(entry)
        let target = slotPath(slot)
        let descriptor = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("open", target) }
        defer { close(descriptor) }
        let written = record.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard written == record.count else { throw failure("write", target) }
        guard ftruncate(descriptor, off_t(record.count)) == 0 else { throw failure("truncate", target) }
        guard fdatasync(descriptor) == 0 else { throw failure("sync", target) }
    }

    /// The whole record with the highest sequence number, if any.
    private func newest() -> Record? {
        (0...1).compactMap(record(slot:)).max { $0.sequence < $1.sequence }
    }

    private func record(slot: Int) -> Record? {
        guard let data = FileManager.default.contents(atPath: slotPath(slot)),
              let newline = data.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let fields = String(decoding: data[..<newline], as: UTF8.self).split(separator: " ")
        let entry = Data(data[data.index(after: newline)...])
        guard fields.count == 4, fields[0] == "herald-journal", let sequence = UInt64(fields[1]),
              Int(fields[2]) == entry.count, fields[3] == Self.checksum(entry) else { return nil }
        return Record(slot: slot, sequence: sequence, entry: entry)
    }

    private static func header(sequence: UInt64, entry: Data) -> String {
        "herald-journal \(sequence) \(entry.count) \(checksum(entry))\n"
    }

    private static func checksum(_ entry: Data) -> String {
        RuntimePaths.fnv1aHex(String(decoding: entry, as: UTF8.self))
    }

    private func slotPath(_ slot: Int) -> String { "\(path).\(slot)" }

    private func failure(_ step: String, _ target: String) -> JournalFileError {
        JournalFileError(path: target, step: step, reason: String(cString: strerror(errno)))
    }
}

/// A journal file that could not be written or cleared: which file, at which step, and why.
struct JournalFileError: Error, CustomStringConvertible {
    var path: String
    var step: String
    var reason: String
    var description: String { "cannot \(step) the restore journal \(path): \(reason)" }
}

import Foundation
import RuntimePaths
#if canImport(Glibc)
import Glibc
#endif

/// A restore journal kept in two small files, `<path>.0` and `<path>.1`, written in turn and
/// synced before `put` returns.
///
/// Why files and not a row in the SQLite log: the synced commit took 0.7 to 1.1 ms before the
/// unmute of every announcement on a muted or quiet sink; writing and syncing a small file in
/// place takes 0.2 ms on the same disk. Why two: a file written in place can be torn by a crash
/// or a power cut mid-write, and the entry is rewritten while the sink is already raised (the
/// volumes the device reported, a stream that appeared). Each write goes to the file that does not
/// hold the newest record, so the other keeps the previous record whole. A record is a header
/// (sequence number, length, checksum) and the entry's JSON, or nothing after the header for
/// "cleared"; a torn one fails its length or checksum.
///
/// The files are opened by path at every write (no descriptor kept), so a folder removed under
/// the daemon fails the write instead of taking it into a deleted inode.
struct JournalFile: Sendable {
    let path: String
    /// Make the folder when it is missing (the runtime folder, for the fallback); false for the
    /// state folder, whose disappearance must be noticed rather than papered over.
    let makesFolder: Bool

    /// One whole record: its sequence number and the entry (empty: cleared).
    struct Record {
        var sequence: UInt64
        var entry: Data
        var slot: Int
    }

    /// The whole record with the highest sequence number, if any.
    func newest() -> Record? {
        (0...1).compactMap(record(slot:)).max { $0.sequence < $1.sequence }
    }

    /// Writes `entry` (empty: cleared) as record `sequence`, synced, into the file that does not
    /// hold `newest` (this pair's newest record, as `newest()` read it).
    func put(_ entry: Data, sequence: UInt64, newest: Record?) throws {
        if makesFolder {
            let folder = (path as NSString).deletingLastPathComponent
            try PrivateFiles.makeFolder(folder)
        }
        let target = slotPath(newest.map { 1 - $0.slot } ?? 0)
        var record = Data("herald-journal \(sequence) \(entry.count) \(Self.checksum(entry))\n".utf8)
        record.append(entry)
        let descriptor = open(target, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, PrivateFiles.fileMode)
        guard descriptor >= 0 else { throw failure("open", target) }
        defer { close(descriptor) }
        let written = record.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard written >= 0 else { throw failure("write", target) }
        guard written == record.count else {
            throw JournalFileError(path: target, step: "write", reason: "short write (\(written) of \(record.count) bytes)")
        }
        guard ftruncate(descriptor, off_t(record.count)) == 0 else { throw failure("truncate", target) }
        guard fdatasync(descriptor) == 0 else { throw failure("sync", target) }
    }

    /// Removes both files; false when a file that exists could not be removed.
    func remove() -> Bool {
        (0...1).allSatisfy { unlink(slotPath($0)) == 0 || errno == ENOENT || errno == ENOTDIR }
    }

    private func record(slot: Int) -> Record? {
        guard let data = FileManager.default.contents(atPath: slotPath(slot)),
              let newline = data.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let fields = String(decoding: data[..<newline], as: UTF8.self).split(separator: " ")
        let entry = Data(data[data.index(after: newline)...])
        guard fields.count == 4, fields[0] == "herald-journal", let sequence = UInt64(fields[1]),
              Int(fields[2]) == entry.count, fields[3] == Self.checksum(entry) else { return nil }
        return Record(sequence: sequence, entry: entry, slot: slot)
    }

    private static func checksum(_ entry: Data) -> String { RuntimePaths.fnv1aHex(bytes: entry) }

    func slotPath(_ slot: Int) -> String { "\(path).\(slot)" }

    private func failure(_ step: String, _ target: String) -> JournalFileError {
        JournalFileError(path: target, step: step, reason: String(cString: strerror(errno)))
    }
}

/// A journal file that could not be written: which file, at which step, and why.
struct JournalFileError: Error, CustomStringConvertible {
    var path: String
    var step: String
    var reason: String
    var description: String { "cannot \(step) the restore journal \(path): \(reason)" }
}

import Foundation
import GRDB
import Logging

/// Rows the database could not take, kept in files in the runtime folder instead of memory only:
/// that folder survives a crash of the daemon (not a reboot), so an announcement accepted while
/// the disk is full is still said, and logged, after a kill -9.
///
/// Each buffer is its own file, `<prefix>.<pid>.<n>.sqlite`, removed once `flush` has copied it
/// to the database. A new store takes over the files of processes no longer running.
extension AnnouncementStore {
    /// A fresh buffer: a file under `overflowPrefix` when there is one and it can be made, else memory.
    func makeBuffer() -> AppDatabase {
        overflowSerial += 1
        return Self.makeBuffer(prefix: overflowPrefix, serial: overflowSerial, logger: logger)
    }

    /// The buffer file numbered `serial` under `prefix` (memory when there is no prefix or no file).
    static func makeBuffer(prefix: String?, serial: Int, logger: Logger) -> AppDatabase {
        guard let prefix else { return inMemoryDatabase() }
        let path = "\(prefix).\(getpid()).\(serial).sqlite"
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return try AppDatabase(path: path)
        } catch {
            logger.critical("rows that cannot be written to the database are kept in memory only: a crash now loses them",
                            metadata: ["overflow": "\(path)", "error": "\(error)"])
            return inMemoryDatabase()
        }
    }

    /// The overflow files left by processes that are gone, oldest first, opened.
    static func leftOverflow(prefix: String) -> [AppDatabase] {
        let folder = (prefix as NSString).deletingLastPathComponent
        let stem = (prefix as NSString).lastPathComponent + "."
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let left = names.compactMap { name -> (path: String, pid: Int32, serial: Int)? in
            guard name.hasPrefix(stem), name.hasSuffix(".sqlite") else { return nil }
            let parts = name.dropFirst(stem.count).dropLast(".sqlite".count).split(separator: ".")
            guard parts.count == 2, let pid = Int32(parts[0]), let serial = Int(parts[1]) else { return nil }
            // Another daemon on this database still writing it: not ours to take.
            guard pid != getpid(), kill(pid, 0) != 0 else { return nil }
            return (folder + "/" + name, pid, serial)
        }
        let modified = { (path: String) in
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
        }
        return left.sorted { (modified($0.path), $0.serial) < (modified($1.path), $1.serial) }
            .compactMap { try? AppDatabase(path: $0.path) }
    }

    /// True for a buffer kept in a file.
    static func isFile(_ buffer: AppDatabase) -> Bool {
        let path = buffer.writer.path
        return !path.isEmpty && path != ":memory:"
    }

    /// Removes the file of a buffer that has been copied (nothing for one in memory).
    static func remove(_ buffer: AppDatabase) {
        guard isFile(buffer) else { return }
        let path = buffer.writer.path
        for suffix in ["", "-journal", "-wal", "-shm", ".migrate-lock"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ConfigValues {
    /// `database.path`: a file SQLite can create, in a folder Herald may write. The folder must be
    /// writable even when the file exists: SQLite writes its journal beside it, and Herald a lock.
    /// Missing folders are created when the database is opened, so the first one that exists decides.
    mutating func databasePath() -> String? {
        let key = "database.path"
        guard let written = string(key)?.trimmingCharacters(in: .whitespaces), !written.isEmpty else { return nil }
        let path = relativeToFile(written)
        let shown = path == written ? "'\(written)'" : "'\(written)' (\(path))"
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        if written.hasSuffix("/") || (fileManager.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue) {
            let example = (path as NSString).appendingPathComponent("herald.sqlite")
            report(key, "\(shown) is a folder; name the database file inside it, like \(example)")
            return nil
        }
        // Absolute, so the walk up ends at / (a relative config file gives a relative path).
        let absolute = path.hasPrefix("/") ? path : (fileManager.currentDirectoryPath as NSString).appendingPathComponent(path)
        var folder = (absolute as NSString).deletingLastPathComponent
        while !fileManager.fileExists(atPath: folder, isDirectory: &isDirectory) {
            folder = (folder as NSString).deletingLastPathComponent
        }
        guard isDirectory.boolValue else {
            report(key, "\(shown) cannot be created: \(folder) is a file, not a folder; choose a path in a folder")
            return nil
        }
        guard access(folder, W_OK) == 0 else {
            let user = ProcessInfo.processInfo.userName
            report(key, "\(shown) cannot be created: user \(user) may not write in \(folder); choose a folder that user may write in, or give the user that right")
            return nil
        }
        return path
    }
}

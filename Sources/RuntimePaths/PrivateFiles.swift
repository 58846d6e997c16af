#if canImport(Glibc)
import Glibc
#endif

/// Herald's files are its user's alone (DESIGN.md, "Security and bad input"): the folders it makes
/// are 0700 and the files 0600, whatever the umask of the process that makes them (a library
/// user's, a service manager's). Modes are given where each thing is created, never changed
/// afterwards: a folder that exists already keeps its mode (it may be shared on purpose;
/// `herald doctor` warns when others can read it). Written without Foundation, like the rest of
/// this module.
public enum PrivateFiles {
    /// The mode of every folder Herald makes.
    public static let folderMode: mode_t = 0o700
    /// The mode of every file Herald makes.
    public static let fileMode: mode_t = 0o600

    /// Makes `path` and each missing folder above it with mode 0700 (mkdir -p); folders that
    /// exist are left as they are.
    /// - Throws: `PrivateFileError` naming the folder that could not be made, and why.
    public static func makeFolder(_ path: String) throws(PrivateFileError) {
        guard !path.isEmpty else { return }
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw PrivateFileError(path: path, step: "make the folder", reason: "it is a file") }
            return
        }
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += prefix.isEmpty || prefix.hasSuffix("/") ? String(component) : "/" + component
            if mkdir(prefix, folderMode) != 0 && errno != EEXIST {
                throw PrivateFileError(path: prefix, step: "make the folder", reason: String(cString: strerror(errno)))
            }
        }
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw PrivateFileError(path: path, step: "make the folder", reason: "it is not a folder")
        }
    }

    /// Opens `path` for writing, creating it with mode 0600 (`flags` adds to O_WRONLY | O_CREAT |
    /// O_CLOEXEC: O_TRUNC, O_EXCL...). An existing file keeps its mode. Returns the descriptor.
    public static func open(_ path: String, flags: Int32 = O_TRUNC) throws(PrivateFileError) -> Int32 {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, fileMode)
        guard descriptor >= 0 else { throw PrivateFileError(path: path, step: "create", reason: String(cString: strerror(errno))) }
        return descriptor
    }

    /// Writes `bytes` to `path` (made with mode 0600, or replacing the contents of the file there).
    public static func write(_ bytes: [UInt8], to path: String) throws(PrivateFileError) {
        let descriptor = try open(path)
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw PrivateFileError(path: path, step: "write", reason: String(cString: strerror(errno))) }
            offset += written
        }
    }

    /// The permission bits of `path` (following a symlink), or nil when it cannot be read. A
    /// group or other bit (`mode & 0o077 != 0`) means other accounts may read or enter it.
    public static func mode(of path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }
}

/// A private folder or file that could not be made: which, at which step, and why.
public struct PrivateFileError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var step: String
    public var reason: String
    public var description: String { "cannot \(step) \(path): \(reason)" }
}

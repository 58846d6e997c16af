import Foundation
import RuntimePaths
#if canImport(Glibc)
import Glibc
#endif

/// The user's private runtime folder and what lives there: the safeguard lock, one per user and
/// sound server (DESIGN.md rule 10), so the daemon and a CLI run exclude each other whatever
/// config files or databases they use, and two private test servers do not; and the daemon's
/// local API socket, one per API port.
public enum RuntimeFolder {
    /// `$XDG_RUNTIME_DIR/herald/safeguard-<id>.lock`, or `/tmp/herald-<uid>/safeguard-<id>.lock`
    /// when there is no runtime directory; `<id>` is a short stable hash of the sound server's
    /// address. Nothing is created (see `prepare`).
    public static func safeguardLock(environment: [String: String], userID: uid_t) -> String {
        (path(environment: environment, userID: userID) as NSString)
            .appendingPathComponent("safeguard-\(RuntimePaths.shortHash(serverAddress(environment: environment))).lock")
    }

    /// `$XDG_RUNTIME_DIR/herald/api-<port>.sock` (or under `/tmp/herald-<uid>`): see
    /// `RuntimePaths.apiSocket`. Nothing is created.
    public static func apiSocket(port: Int, environment: [String: String], userID: uid_t) -> String {
        RuntimePaths.apiSocket(folder: path(environment: environment, userID: userID), port: port)
    }

    /// The runtime folder: see `RuntimePaths.folder`. Creates nothing (see `prepare`).
    public static func path(environment: [String: String], userID: uid_t) -> String {
        RuntimePaths.folder(runtimeDirectory: environment["XDG_RUNTIME_DIR"], userID: userID)
    }

    /// The sound server the lock is for: `PULSE_SERVER`, without a `unix:` prefix, or `default`
    /// when it is unset or names the user's own default socket (the same server either way).
    public static func serverAddress(environment: [String: String]) -> String {
        var address = (environment["PULSE_SERVER"] ?? "").trimmingCharacters(in: .whitespaces)
        if address.hasPrefix("unix:") { address.removeFirst("unix:".count) }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty,
           address == (runtime as NSString).appendingPathComponent("pulse/native") {
            return "default"
        }
        return address.isEmpty ? "default" : address
    }

    /// Creates the runtime folder with mode 0700, or checks that the one there is a directory of
    /// `userID`'s (not a symlink, not another user's: in /tmp anyone could have made it first).
    /// - Throws: `HeraldFailure.io` saying what is wrong and what to do.
    public static func prepare(_ folder: String, userID: uid_t) throws {
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw HeraldFailure.io("cannot create the runtime folder \(folder): \(String(cString: strerror(errno))); set XDG_RUNTIME_DIR to a folder of yours")
        }
        var info = stat()
        guard lstat(folder, &info) == 0 else {
            throw HeraldFailure.io("cannot read the runtime folder \(folder): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw HeraldFailure.io("the runtime folder \(folder) is not a directory (a symlink or a file); remove it, or set XDG_RUNTIME_DIR to a folder of yours")
        }
        guard info.st_uid == userID else {
            throw HeraldFailure.io("the runtime folder \(folder) belongs to user \(info.st_uid), not to you (\(userID)); another user may be interfering. Remove it, or set XDG_RUNTIME_DIR to a folder of yours")
        }
        // Ours but open to others (made by hand, or by an old umask): close it.
        if info.st_mode & 0o077 != 0 && chmod(folder, 0o700) != 0 {
            throw HeraldFailure.io("cannot make the runtime folder \(folder) private: \(String(cString: strerror(errno)))")
        }
    }
}

/// Which runtime folder a process works in: its environment (`XDG_RUNTIME_DIR`, `PULSE_SERVER`)
/// and its user. Passed into `HeraldContext` rather than read there, so a test gives each daemon a
/// folder (and a safeguard lock) of its own instead of the developer's.
public struct RuntimeLocation: Sendable {
    public var environment: [String: String]
    public var userID: uid_t

    public init(environment: [String: String], userID: uid_t) {
        self.environment = environment
        self.userID = userID
    }

    /// This process's: its environment and user.
    public static var process: RuntimeLocation {
        RuntimeLocation(environment: ProcessInfo.processInfo.environment, userID: getuid())
    }

    /// This process's, with `XDG_RUNTIME_DIR` set to `folder`.
    public static func folder(_ folder: String) -> RuntimeLocation {
        var location = process
        location.environment["XDG_RUNTIME_DIR"] = folder
        return location
    }

    /// The runtime folder (`RuntimeFolder.path`).
    public var folder: String { RuntimeFolder.path(environment: environment, userID: userID) }

    /// The safeguard lock (`RuntimeFolder.safeguardLock`).
    public var safeguardLock: String { RuntimeFolder.safeguardLock(environment: environment, userID: userID) }
}

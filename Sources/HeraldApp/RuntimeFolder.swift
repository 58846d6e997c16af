import Foundation
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
            .appendingPathComponent("safeguard-\(shortHash(serverAddress(environment: environment))).lock")
    }

    /// `$XDG_RUNTIME_DIR/herald/api-<port>.sock` (or under `/tmp/herald-<uid>`): where the daemon
    /// serving the API on `port` also listens for the CLI. Per port, so two daemons (tests, two
    /// configs) never take each other's socket. Nothing is created.
    public static func apiSocket(port: Int, environment: [String: String], userID: uid_t) -> String {
        (path(environment: environment, userID: userID) as NSString).appendingPathComponent("api-\(port).sock")
    }

    /// `$XDG_RUNTIME_DIR/herald`, or `/tmp/herald-<uid>` when there is no runtime directory, or
    /// the one named is missing or not writable (a variable carried over by `su` or `sudo -E`
    /// from another session): a stale variable must not stop a payment from being said. Creates
    /// nothing (see `prepare`); the daemon and the CLI, looking at the same folder, agree.
    public static func path(environment: [String: String], userID: uid_t) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty, access(runtime, W_OK | X_OK) == 0 {
            return (runtime as NSString).appendingPathComponent("herald")
        }
        return "/tmp/herald-\(userID)"
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

    /// 64-bit FNV-1a as 12 hex digits: stable across runs and builds (Swift's `Hasher` is seeded
    /// per process, so it cannot name a file two processes share).
    static func shortHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String((String(repeating: "0", count: max(0, 16 - hex.count)) + hex).prefix(12))
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

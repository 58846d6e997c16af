import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the safeguard lock lives: one per user and sound server (DESIGN.md rule 10), so the
/// daemon and a CLI run exclude each other whatever config files or databases they use, and
/// two private test servers do not.
public enum SafeguardLockPath {
    /// `$XDG_RUNTIME_DIR/herald/safeguard-<id>.lock`, or `/tmp/herald-<uid>/safeguard-<id>.lock`
    /// when there is no runtime directory; `<id>` is a short stable hash of the sound server's
    /// address. Pure: nothing is created (see `prepareDirectory`).
    public static func path(environment: [String: String], userID: uid_t) -> String {
        let folder: String
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            folder = (runtime as NSString).appendingPathComponent("herald")
        } else {
            folder = "/tmp/herald-\(userID)"
        }
        return (folder as NSString).appendingPathComponent("safeguard-\(shortHash(serverAddress(environment: environment))).lock")
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

    /// Creates the lock's folder with mode 0700, or checks that the one there is a directory of
    /// `userID`'s (not a symlink, not another user's: in /tmp anyone could have made it first).
    /// - Throws: `HeraldFailure.io` saying what is wrong and what to do.
    public static func prepareDirectory(_ folder: String, userID: uid_t) throws {
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw HeraldFailure.io("cannot create the lock folder \(folder): \(String(cString: strerror(errno))); set XDG_RUNTIME_DIR to a folder of yours")
        }
        var info = stat()
        guard lstat(folder, &info) == 0 else {
            throw HeraldFailure.io("cannot read the lock folder \(folder): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw HeraldFailure.io("the lock folder \(folder) is not a directory (a symlink or a file); remove it, or set XDG_RUNTIME_DIR to a folder of yours")
        }
        guard info.st_uid == userID else {
            throw HeraldFailure.io("the lock folder \(folder) belongs to user \(info.st_uid), not to you (\(userID)); another user may be interfering. Remove it, or set XDG_RUNTIME_DIR to a folder of yours")
        }
        // Ours but open to others (made by hand, or by an old umask): close it.
        if info.st_mode & 0o077 != 0 && chmod(folder, 0o700) != 0 {
            throw HeraldFailure.io("cannot make the lock folder \(folder) private: \(String(cString: strerror(errno)))")
        }
    }
}

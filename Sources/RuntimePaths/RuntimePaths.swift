#if canImport(Glibc)
import Glibc
#endif

/// Where the daemon and the command line meet on this machine: the user's runtime folder, the
/// daemon's API socket per port, and a link per config file to that socket. Written without
/// Foundation: the lean `herald` front uses it before anything else is loaded.
public enum RuntimePaths {
    /// The API's port when the config names none (`api.listen`).
    public static let defaultAPIPort = 7370

    /// `$XDG_RUNTIME_DIR/herald`, or `/tmp/herald-<uid>` when there is no runtime directory, or
    /// the one named is missing or not writable (a variable carried over by `su` or `sudo -E`
    /// from another session): a stale variable must not stop a payment from being said. Creates
    /// nothing; the daemon and the CLI, looking at the same folder, agree.
    public static func folder(runtimeDirectory: String?, userID: uid_t) -> String {
        if let runtime = runtimeDirectory, !runtime.isEmpty, access(runtime, W_OK | X_OK) == 0 {
            return joined(runtime, "herald")
        }
        return "/tmp/herald-\(userID)"
    }

    /// True when `folder` is a directory of `userID`'s that no one else may enter (not a symlink,
    /// mode without group or other bits). In /tmp anyone could have made `/tmp/herald-<uid>`
    /// first and left a socket there that answers "played" for a payment never said.
    public static func isPrivate(_ folder: String, userID: uid_t) -> Bool {
        var info = stat()
        return lstat(folder, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR && info.st_uid == userID
            && info.st_mode & 0o077 == 0
    }

    /// `<folder>/api-<port>.sock`: where the daemon serving the API on `port` also listens for
    /// the CLI. Per port, so two daemons (tests, two configs) never take each other's socket.
    public static func apiSocket(folder: String, port: Int) -> String {
        joined(folder, "api-\(port).sock")
    }

    /// `<folder>/config-<hash>.sock`: a symlink the daemon started with the config file at
    /// `configPath` (resolved, see `resolved`) makes to its API socket, so a CLI given the same
    /// file finds the daemon without reading YAML for the port.
    public static func configLink(folder: String, configPath: String) -> String {
        joined(folder, "config-\(shortHash(configPath)).sock")
    }

    /// `path` with symlinks and `..` resolved, so the daemon and the CLI name one file alike;
    /// nil when it does not exist.
    public static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// 64-bit FNV-1a as 12 hex digits (see `fnv1aHex`).
    public static func shortHash(_ text: String) -> String {
        String(fnv1aHex(text).prefix(12))
    }

    /// 64-bit FNV-1a as 16 hex digits: stable across runs and builds (Swift's `Hasher` is seeded
    /// per process, so it cannot name a file two processes share). The clip cache names its files
    /// with it too.
    public static func fnv1aHex(_ text: String) -> String {
        fnv1aHex(bytes: text.utf8)
    }

    /// 64-bit FNV-1a of raw bytes as 16 hex digits (the restore journal's checksum).
    public static func fnv1aHex(bytes: some Sequence<UInt8>) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Connects `fd` (an AF_UNIX stream socket) to the socket file at `path`: true when a server
    /// accepted, false at once for a missing file, a stale socket or a path too long.
    public static func connect(_ fd: Int32, unixPath path: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    private static func joined(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}

import Foundation
import HeraldApp
import Logging
import RuntimePaths

/// The daemon's UNIX socket in the user's runtime folder, where `herald say` and `herald pay`
/// reach it without TCP, tokens or retries (RuntimeFolder.apiSocket).
enum LocalAPISocket {
    /// The socket path for the API on `port`, ready to bind: its folder made private, a stale
    /// socket of a killed daemon removed. Nil (logged) when there is none to take: port 0, a
    /// folder that is not the user's, or another daemon answering on it.
    static func claim(port: Int, logger: Logger) -> String? {
        guard port != 0 else { return nil }
        let path = RuntimeFolder.apiSocket(port: port, environment: ProcessInfo.processInfo.environment, userID: getuid())
        do {
            try RuntimeFolder.prepare((path as NSString).deletingLastPathComponent, userID: getuid())
        } catch {
            logger.warning("no local socket for the CLI (it will use HTTP): \(error)")
            return nil
        }
        if SocketProbe.answers(unixPath: path) {
            logger.warning("another herald serves the local socket \(path); the CLI on this port talks to it, not to this one")
            return nil
        }
        if unlink(path) != 0 && errno != ENOENT {
            logger.warning("cannot remove the stale local socket \(path): \(String(cString: strerror(errno))); the CLI will use HTTP")
            return nil
        }
        return path
    }

    /// The socket of the daemon on `port` when one answers there now.
    static func answering(port: Int) -> String? {
        let path = RuntimeFolder.apiSocket(port: port, environment: ProcessInfo.processInfo.environment, userID: getuid())
        // A folder someone else made (in /tmp) could hold a socket that answers for no daemon.
        guard RuntimePaths.isPrivate((path as NSString).deletingLastPathComponent, userID: getuid()) else { return nil }
        return SocketProbe.answers(unixPath: path) ? path : nil
    }

    /// Links `socket` from the name the lean `herald` front looks for with the config file at
    /// `configPath` (`RuntimePaths.configLink`), replacing at once (a rename) a link a former
    /// daemon left. Nil when there is no file or no link could be made (logged: the front then
    /// hands `say` to herald-full, which finds the socket by the config's port).
    static func link(configPath: String?, to socket: String, logger: Logger) -> ConfigLink? {
        guard let configPath, let resolved = RuntimePaths.resolved(configPath) else { return nil }
        let path = RuntimePaths.configLink(folder: (socket as NSString).deletingLastPathComponent, configPath: resolved)
        let temporary = path + ".\(getpid())"
        unlink(temporary)
        var info = stat()
        // The inode is read before the rename (which keeps it): read after, it could be a newer daemon's.
        guard symlink(socket, temporary) == 0, lstat(temporary, &info) == 0, rename(temporary, path) == 0 else {
            logger.warning("cannot link \(path) to the local socket: \(String(cString: strerror(errno))); `herald say` will start slower")
            unlink(temporary)
            return nil
        }
        return ConfigLink(path: path, inode: info.st_ino)
    }

    /// A link made by `link`, known by its inode: a newer daemon with the same config replaces it
    /// with one of its own, which a graceful stop of this one must leave.
    struct ConfigLink {
        var path: String
        var inode: ino_t

        func remove() {
            var info = stat()
            if lstat(path, &info) == 0 && info.st_ino == inode { unlink(path) }
        }
    }
}

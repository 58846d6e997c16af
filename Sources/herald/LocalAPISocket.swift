import Foundation
import HeraldApp
import Logging

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
        return SocketProbe.answers(unixPath: path) ? path : nil
    }
}

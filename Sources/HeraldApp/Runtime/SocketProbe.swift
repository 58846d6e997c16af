import Foundation
import RuntimePaths
#if canImport(Glibc)
import Glibc
#endif

/// Whether something listens on a socket, known at once: one plain connect(2), no retries.
///
/// HTTP clients retry a refused connection until their deadline (async-http-client for the
/// whole timeout), which made `herald say` wait 300 ms to learn that no daemon runs.
public enum SocketProbe {
    /// True when a server accepts on the UNIX socket at `path` within `timeout` (a missing file or
    /// a stale socket left by a killed daemon answers false in microseconds; a daemon whose
    /// backlog is full would otherwise hold the connect for as long as it stays full).
    public static func answers(unixPath path: String, timeout: Duration = .seconds(5)) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        // SO_SNDTIMEO bounds a blocking connect(2) on a UNIX socket; unbounded, the probe could
        // hang for as long as a stuck daemon's backlog stays full, so no answer within the timeout.
        var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        guard setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size)) == 0 else { return false }
        return RuntimePaths.connect(fd, unixPath: path)
    }

    /// True when a server accepts TCP on `host` (an IPv4 address or `localhost`) and `port`
    /// within `timeout`; a refused loopback port answers false at once.
    public static func answers(host: String, port: Int, timeout: Duration = .milliseconds(200)) -> Bool {
        guard var address = ipv4(host: host, port: port) else { return false }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let started = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if started == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        var poll = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard Glibc.poll(&poll, 1, milliseconds) == 1 else { return false }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 && failure == 0
    }

    /// The IPv4 address of `host` (an address, or `localhost`/`0.0.0.0`/empty for loopback).
    private static func ipv4(host: String, port: Int) -> sockaddr_in? {
        let target = host == "0.0.0.0" || host == "localhost" || host.isEmpty ? "127.0.0.1" : host
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: port)).bigEndian
        guard inet_pton(AF_INET, target, &address.sin_addr) == 1 else { return nil }
        return address
    }
}

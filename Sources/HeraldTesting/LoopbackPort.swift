import Foundation

/// Ports for servers a test or the soak starts on loopback.
public enum LoopbackPort {
    /// A port nothing listens on now: the kernel's pick for a socket bound to port 0 (never a
    /// random one, which may be in the ephemeral range another connection holds).
    public static func free() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackPortError(call: "socket", code: errno) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw LoopbackPortError(call: "bind", code: errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A socket call that failed while looking for a free port.
public struct LoopbackPortError: Error, CustomStringConvertible {
    public let call: String
    public let code: Int32
    public var description: String { "\(call): \(String(cString: strerror(code)))" }
}

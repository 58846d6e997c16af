import Foundation
import HeraldTesting

/// A Mosquitto of one test, beside the shared one of scripts/test.sh: its own folder, config, pid
/// file and free loopback port, for what the shared broker must not carry (a TLS listener, users
/// and an ACL). Stopped by its pid when the test lets go of it.
final class MQTTPrivateBroker {
    let folder: String
    let port: Int
    private let pidFile: String
    private let logFile: String
    private let configFile: String

    /// `config`: the listener's settings, after `listener PORT 127.0.0.1` (certfile, password_file...).
    init(config: String, in folder: String) throws {
        self.folder = folder
        port = try Self.freePort()
        pidFile = folder + "/mosquitto.pid"
        logFile = folder + "/mosquitto.log"
        configFile = folder + "/mosquitto.conf"
        // As root, Mosquitto would drop to the `mosquitto` user, which may not read this folder.
        try """
            user \(NSUserName())
            per_listener_settings false
            pid_file \(pidFile)
            log_dest file \(logFile)
            log_type all
            persistence false
            listener \(port) 127.0.0.1
            \(config)
            """.write(toFile: configFile, atomically: true, encoding: .utf8)
        try start()
    }

    /// Starts the broker from its config, on its port; after `stop`, a broker back with no
    /// memory of what it held (persistence is off).
    func start() throws {
        // Not `Process`: the daemon forked by -d would keep the pipes Foundation waits on.
        try Broker.spawnAndReap(["/bin/bash", "-c",
                                 #"for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; exec mosquitto -c "$1" -d"#,
                                 "bash", configFile])
        do {
            try SoundServer.waitFor("the test's own broker to listen on \(port)", timeout: 10) {
                FileManager.default.fileExists(atPath: pidFile) && Self.accepts(port)
            }
        } catch {
            throw SoundServer.CommandFailed(description: "\(error); its log: \(log)")
        }
    }

    deinit { stop() }

    /// A broker as Config/mosquitto-acl.example says to run one: no anonymous clients, a password
    /// `secret-<user>` for each of `users`, the example's ACL as shipped plus `aclLines` (an admin's
    /// per-hub group blocks), and `tls` lines (certfile, keyfile) when given.
    static func withExampleACL(users: [String], aclLines: String, tls: String = "", in folder: String) throws -> MQTTPrivateBroker {
        let passwords = folder + "/passwd", acl = folder + "/herald.acl"
        for (index, user) in users.enumerated() {
            let result = try SoundServer.run("mosquitto_passwd", (index == 0 ? ["-c"] : []) + ["-b", passwords, user, "secret-\(user)"])
            guard result.status == 0 else { throw SoundServer.CommandFailed(description: "mosquitto_passwd: \(result.stderr)") }
        }
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Config/mosquitto-acl.example").standardized.path
        try (String(contentsOfFile: example, encoding: .utf8) + "\n" + aclLines).write(toFile: acl, atomically: true, encoding: .utf8)
        return try MQTTPrivateBroker(config: """
            allow_anonymous false
            password_file \(passwords)
            acl_file \(acl)
            \(tls)
            """, in: folder)
    }

    /// SIGTERM by the pid it wrote, and waits for it to go.
    func stop() {
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
              let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0 else { return }
        kill(pid, SIGTERM)
        try? SoundServer.waitFor("the test's own broker to stop", timeout: 10) { kill(pid, 0) != 0 }
        try? FileManager.default.removeItem(atPath: pidFile)
    }

    /// What the broker logged: why it refused a client, what it denied.
    var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// A loopback port nothing listens on now (HeraldTesting's `LoopbackPort`).
    static func freePort() throws -> Int { try LoopbackPort.free() }

    /// Whether a TCP connection to `port` on loopback is accepted.
    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// Certificates made with openssl for one test: EC P-256, valid two days, in the test's folder.
enum TestCertificates {
    /// A self-signed CA: (certificate, key).
    static func authority(_ name: String, in folder: String) throws -> (certificate: String, key: String) {
        let (certificate, key) = ("\(folder)/\(name).crt", "\(folder)/\(name).key")
        try openssl(["req", "-x509", "-new", "-nodes", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                     "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=Herald test \(name)",
                     "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        return (certificate, key)
    }

    /// A server certificate for 127.0.0.1 signed by `authority`: (certificate, key).
    static func server(_ name: String, signedBy authority: (certificate: String, key: String), in folder: String) throws
        -> (certificate: String, key: String) {
        let (certificate, key, request, extensions) = ("\(folder)/\(name).crt", "\(folder)/\(name).key",
                                                       "\(folder)/\(name).csr", "\(folder)/\(name).ext")
        try openssl(["req", "-new", "-nodes", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                     "-keyout", key, "-out", request, "-subj", "/CN=127.0.0.1"])
        try """
            subjectAltName = IP:127.0.0.1, DNS:localhost
            basicConstraints = CA:FALSE
            keyUsage = digitalSignature, keyEncipherment
            extendedKeyUsage = serverAuth
            """.write(toFile: extensions, atomically: true, encoding: .utf8)
        try openssl(["x509", "-req", "-in", request, "-CA", authority.certificate, "-CAkey", authority.key,
                     "-CAcreateserial", "-out", certificate, "-days", "2", "-extfile", extensions])
        return (certificate, key)
    }

    private static func openssl(_ arguments: [String]) throws {
        let result = try SoundServer.run("openssl", arguments)
        guard result.status == 0 else {
            throw SoundServer.CommandFailed(description: "openssl \(arguments.prefix(2).joined(separator: " ")): \(result.stderr)")
        }
    }
}

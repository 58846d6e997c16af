import Foundation

/// A file that holds a secret of the config's (the config file itself when a token, secret or
/// password is written in it; a `NAME_file` secret; a TLS key), with the keys that put it there.
public struct SecretFile: Sendable, Equatable {
    public var path: String
    /// `api.tokens`, `api.signing_secrets.till_file`, `mqtt.key`...
    public var keys: [String]

    public init(path: String, keys: [String]) {
        self.path = path
        self.keys = keys
    }

    /// A secret file that other accounts on this machine can read, with its mode.
    public struct Exposure: Sendable, Equatable, CustomStringConvertible {
        public var file: SecretFile
        public var mode: mode_t

        /// "/etc/herald.yaml (mode 0644) holds api.tokens: ...; chmod 600 /etc/herald.yaml".
        public var description: String {
            let digits = String(mode & 0o7777, radix: 8)
            let who = mode & 0o004 != 0 ? "every account on this machine" : "the accounts of its group"
            return "\(file.path) (mode \(String(repeating: "0", count: max(0, 4 - digits.count)) + digits)) holds \(file.keys.joined(separator: ", ")), and \(who) can read it: whoever reads it can make the counter say a payment; run chmod 600 \(file.path) (and chown it to the account Herald runs as)"
        }
    }

    /// Those of `files` that accounts other than the owner can read (group or others' read bit),
    /// oldest named first; a file that cannot be looked at is left to the checks that read it.
    public static func exposed(_ files: [SecretFile]) -> [Exposure] {
        files.compactMap { file in
            var status = stat()
            guard stat(file.path, &status) == 0, status.st_mode & 0o044 != 0 else { return nil }
            return Exposure(file: file, mode: status.st_mode)
        }
    }
}

extension ConfigValues {
    /// The files holding this config's secrets: the config file for what is written in it, and
    /// each file a key names.
    mutating func secretFiles(_ configuration: HeraldConfiguration) -> [SecretFile] {
        var inline: [String] = []
        for key in ["api.tokens", "fleet.tokens"] where !(layout.mappings[key] ?? []).isEmpty { inline.append(key) }
        var named: [SecretFile] = []
        for (name, _) in layout.mappings["api.signing_secrets"] ?? [] {
            let key = "api.signing_secrets.\(name)"
            if name.hasSuffix("_file") {
                if let path = string(key), !path.isEmpty { named.append(SecretFile(path: relativeToFile(path), keys: [key])) }
            } else {
                inline.append(key)
            }
        }
        if configuration.mqtt?.password != nil { inline.append("mqtt.password") }
        if configuration.fleet?.broker.password != nil { inline.append("fleet.password") }
        if configuration.fleet?.database.password != nil { inline.append("fleet.database") }
        if let key = configuration.mqtt?.keyFile { named.append(SecretFile(path: key, keys: ["mqtt.key"])) }
        if let key = configuration.fleet?.tls?.key { named.append(SecretFile(path: key, keys: ["fleet.tls_key"])) }
        return (inline.isEmpty ? [] : [SecretFile(path: file, keys: inline)]) + named
    }
}

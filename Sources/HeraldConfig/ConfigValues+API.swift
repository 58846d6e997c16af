import Foundation

extension ConfigValues {
    /// A `host:port` to listen on (`[::1]:7370` too); nil when absent or reported.
    mutating func listenAddress(_ key: String, example: String) -> (host: String, port: Int)? {
        guard let listen = string(key), !listen.isEmpty else { return nil }
        let separator = listen.lastIndex(of: ":")
        let host = separator.map { String(listen[..<$0]) }?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) ?? ""
        guard let separator, let port = Int(listen[listen.index(after: separator)...]), (1...65_535).contains(port), !host.isEmpty else {
            report(key, "'\(listen)' is not host:port; write it like \(example)")
            return nil
        }
        return (host, port)
    }

    /// `key`'s tokens (`api.tokens`, `fleet.tokens`): each at least 16 characters, its role one of
    /// `Role`'s (`roles` names them for the error).
    mutating func tokens<Role: RawRepresentable<String>>(_ key: String, roles: String) -> [String: Role] {
        var tokens: [String: Role] = [:]
        for (token, _) in layout.mappings[key] ?? [] {
            let role = string("\(key).\(token)") ?? ""
            guard let parsed = Role(rawValue: role.lowercased()) else {
                report("\(key).\(token)", "'\(role)' is not a role; use \(roles)")
                continue
            }
            guard token.count >= 16 else {
                report("\(key).\(token)", "a token must be at least 16 characters; make one with 'openssl rand -hex 16'")
                continue
            }
            tokens[token] = parsed
        }
        return tokens
    }

    /// `api:`: where the daemon listens, who may use it, and what must be signed.
    mutating func readAPI(into api: inout APISettings) {
        if let (host, port) = listenAddress("api.listen", example: "127.0.0.1:7370") {
            api.host = host
            api.port = port
        }
        api.tokens = tokens("api.tokens", roles: "announce or admin")
        api.maxBodyBytes = integer("api.max_body_bytes", range: 1024...10_000_000) ?? api.maxBodyBytes
        api.maxTextCharacters = integer("api.max_text_chars", range: 1...100_000) ?? api.maxTextCharacters
        api.ratePerMinute = integer("api.rate_per_minute", range: 1...1_000_000) ?? api.ratePerMinute
        api.idleTimeout = duration("api.idle_timeout", range: .seconds(1) ... .seconds(3600)) ?? api.idleTimeout
        api.bodyTimeout = duration("api.body_timeout", range: .seconds(1) ... .seconds(600)) ?? api.bodyTimeout
        api.maxConnections = integer("api.max_connections", range: 4...100_000) ?? api.maxConnections
        api.maxConnectionsPerClient = integer("api.max_connections_per_client", range: 1...100_000) ?? api.maxConnectionsPerClient
        if !api.isLoopback && api.tokens.isEmpty {
            report("api.listen", "\(api.host) is reachable from the network, and api.tokens is empty; add tokens or listen on 127.0.0.1")
        }
        readHostnames(into: &api)
        readSigning(into: &api)
    }

    /// `api.hostnames`: the names (besides `localhost` and IP addresses) a request's `Host` may
    /// carry; any other name is a DNS-rebinding page's and is answered 421.
    private mutating func readHostnames(into api: inout APISettings) {
        guard layout.listItems["api.hostnames"] != nil else { return }
        for name in layout.listItems["api.hostnames"] ?? [] {
            let normalized = APISettings.normalizedHostname(name)
            guard !normalized.isEmpty, normalized.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }) else {
                report("api.hostnames", "'\(name)' is not a host name; write names like herald.local or counter-1.shop.example, without a port")
                continue
            }
            api.hostnames.insert(normalized)
        }
    }

    /// `api.signing_secrets`, `api.require_signature`, `api.signature_tolerance`.
    private mutating func readSigning(into api: inout APISettings) {
        for (name, _) in layout.mappings["api.signing_secrets"] ?? [] {
            let key = "api.signing_secrets.\(name)"
            guard let written = string(key), !written.isEmpty else {
                report(key, "is empty; give the secret, or NAME_file: a file holding it")
                continue
            }
            var secretName = name, secret = written
            if name.hasSuffix("_file") {
                secretName = String(name.dropLast("_file".count))
                let path = relativeToFile(written)
                guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                    report(key, "cannot read \(path); give a file this user may read, holding the secret")
                    continue
                }
                secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            guard !secretName.isEmpty, secretName.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") }) else {
                report(key, "'\(secretName)' is not a secret's name; use letters, digits and - _ . (the log names the secret that signed)")
                continue
            }
            guard secret.utf8.count >= 16 else {
                report(key, "a signing secret must be at least 16 characters; make one with 'openssl rand -hex 32'")
                continue
            }
            guard api.signingSecrets[secretName] == nil else {
                report(key, "the secret \(secretName) is given twice (as \(secretName) and \(secretName)_file); keep one")
                continue
            }
            api.signingSecrets[secretName] = secret
        }
        if layout.listItems["api.require_signature"] != nil {
            for kind in layout.listItems["api.require_signature"] ?? [] {
                let word = kind.trimmingCharacters(in: .whitespaces).lowercased()
                if word == "all" {
                    api.requireSignature.formUnion(SignedKind.allCases)
                } else if let parsed = SignedKind(rawValue: word) {
                    api.requireSignature.insert(parsed)
                } else {
                    report("api.require_signature", "'\(kind)' is not a kind; use payment, text, clip, audio_url or all")
                }
            }
        }
        api.signatureTolerance = duration("api.signature_tolerance", range: .seconds(5) ... .seconds(86_400)) ?? api.signatureTolerance
        if !api.requireSignature.isEmpty && api.signingSecrets.isEmpty {
            report("api.require_signature", "requires signatures but api.signing_secrets is empty; add a secret (NAME: SECRET or NAME_file: PATH)")
        }
    }
}

import Foundation
import HeraldCore

extension ConfigValues {
    /// `fleet:`; nil (no console) when `fleet.database` is absent or empty.
    mutating func fleet() -> FleetSettings? {
        guard let written = string("fleet.database")?.trimmingCharacters(in: .whitespaces), !written.isEmpty else {
            if let key = ["fleet.broker", "fleet.alarms.webhook"].first(where: { !(string($0) ?? "").isEmpty }) {
                report(key, "has no effect without fleet.database; add database: postgres://herald@127.0.0.1:5432/herald_fleet or remove it")
            }
            return nil
        }
        guard let database = fleetDatabase(written) else { return nil }
        let brokerText = string("fleet.broker")?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !brokerText.isEmpty else {
            report("fleet.broker", "the console needs the hubs' broker; write it like broker: mqtt://127.0.0.1:1883")
            return nil
        }
        guard let address = brokerAddress(brokerText, key: "fleet.broker", credentials: "fleet.username and fleet.password") else {
            return nil
        }
        // Unnamed, the host's name and this process's id: two unnamed consoles on one machine once
        // shared a client id and took the session from each other every second, forever. An
        // unnamed console keeps no session (below), so a new id at each start costs nothing.
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "console"
        var name = "\(host.prefix(40))-\(ProcessInfo.processInfo.processIdentifier)"
        var named = false
        if let written = string("fleet.name")?.trimmingCharacters(in: .whitespaces), !written.isEmpty {
            if MQTTSettings.isTopicName(written) { (name, named) = (written, true) } else {
                report("fleet.name", "'\(written)' must be letters, digits, - _ and ., like console-a")
            }
        }
        var broker = MQTTSettings(broker: address, hub: name)
        broker.clientID = "herald-fleet-\(name)"
        // A named console's session outlives a crash by fleet.session_expiry (60 s): the messages
        // the broker had sent it and not heard acknowledged, and those it routes to it meanwhile (a
        // broker routes a shared subscription's messages to offline members too, as Mosquitto
        // does), wait for it to come back under its name. Kept short, as they are lost if it does
        // not. A clean stop ends the session at once; an unnamed console (a new id at each start)
        // never keeps one.
        let expiry = duration("fleet.session_expiry", range: .zero ... .seconds(86_400)) ?? .seconds(60)
        broker.sessionExpiry = named ? UInt32(expiry.inSeconds) : 0
        broker.username = string("fleet.username").flatMap { $0.isEmpty ? nil : $0 }
        broker.password = string("fleet.password").flatMap { $0.isEmpty ? nil : $0 }
        if broker.password != nil && broker.username == nil { report("fleet.password", "a password needs fleet.username") }
        broker.caFile = readableFile("fleet.ca")
        if !address.tls && !(string("fleet.ca") ?? "").isEmpty { report("fleet.ca", "is only used over TLS; write the broker as mqtts://") }
        var fleet = FleetSettings(broker: broker, database: database, name: name)
        if let group = string("fleet.share_group")?.trimmingCharacters(in: .whitespaces), !group.isEmpty {
            // A shared subscription's group name may hold no / + or # (MQTT 5, 4.8.2).
            if MQTTSettings.isTopicName(group) { fleet.shareGroup = group } else {
                report("fleet.share_group", "'\(group)' must be letters, digits, - _ and . (up to 64); make a secret one with 'openssl rand -hex 16'")
            }
        }
        if let (host, port) = listenAddress("fleet.listen", example: "127.0.0.1:7380") {
            fleet.listenHost = host
            fleet.listenPort = port
        }
        readFleetAccess(into: &fleet)
        if let after = duration("fleet.alarms.offline_after", range: .seconds(1) ... .seconds(7 * 86_400)) {
            fleet.alarms.offlineAfter = after.inSeconds
        }
        if let after = duration("fleet.alarms.unacknowledged_after", range: .seconds(1) ... .seconds(7 * 86_400)) {
            fleet.alarms.unacknowledgedAfter = after.inSeconds
        }
        if let size = string("fleet.alarms.low_disk"), !size.isEmpty {
            if let bytes = Self.byteCount(size) { fleet.alarms.lowDiskBytes = bytes } else {
                report("fleet.alarms.low_disk", "'\(size)' is not a size; write it like 200MB")
            }
        }
        if let url = string("fleet.alarms.webhook")?.trimmingCharacters(in: .whitespaces), !url.isEmpty {
            if let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil {
                fleet.webhook = url
            } else {
                report("fleet.alarms.webhook", "'\(url)' is not an http(s) URL; write it like https://ops.example.com/herald-alarms")
            }
        }
        fleet.eventsRetention = duration("fleet.events_retention", range: .seconds(3600) ... .seconds(3650 * 86_400))
            ?? fleet.eventsRetention
        return fleet
    }

    /// `fleet.tokens`, `fleet.tls_cert` and `fleet.tls_key`. Tokens follow `api.tokens`' rules
    /// (16 characters at least); a console reachable from the network without them is refused,
    /// as the hub's API is.
    private mutating func readFleetAccess(into fleet: inout FleetSettings) {
        fleet.tokens = tokens("fleet.tokens", roles: "read or operate")
        if !fleet.isLoopback && fleet.tokens.isEmpty {
            report("fleet.listen", "\(fleet.listenHost) is reachable from the network, and fleet.tokens is empty; add tokens (read, operate) or listen on 127.0.0.1")
        }
        let written = ["fleet.tls_cert", "fleet.tls_key"].filter { !(string($0)?.trimmingCharacters(in: .whitespaces) ?? "").isEmpty }
        if written.count == 1 {
            report(written[0], "fleet.tls_cert and fleet.tls_key go together (the certificate and its private key, PEM); give both or neither")
        } else if let certificate = readableFile("fleet.tls_cert"), let key = readableFile("fleet.tls_key") {
            fleet.tls = .init(certificate: certificate, key: key)
        }
    }

    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` (or `postgresql://`).
    private mutating func fleetDatabase(_ written: String) -> FleetSettings.Database? {
        guard let url = URLComponents(string: written), let scheme = url.scheme?.lowercased(), ["postgres", "postgresql"].contains(scheme),
              let host = url.host, !host.isEmpty, let user = url.user, !user.isEmpty,
              case let name = String(url.path.drop(while: { $0 == "/" })), !name.isEmpty, !name.contains("/") else {
            report("fleet.database", "'\(written)' is not a PostgreSQL address; write it like postgres://herald@127.0.0.1:5432/herald_fleet (user, host and database)")
            return nil
        }
        let port = url.port ?? 5432
        guard (1...65_535).contains(port) else {
            report("fleet.database", "port \(port) is out of range; use 1 to 65535")
            return nil
        }
        return FleetSettings.Database(host: host, port: port, user: user, password: url.password, name: name)
    }
}

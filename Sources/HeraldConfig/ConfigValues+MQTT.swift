import Foundation

extension ConfigValues {
    /// `mqtt:`; nil (the link is off) when `mqtt.broker` is absent or empty.
    mutating func mqtt() -> MQTTSettings? {
        guard let broker = string("mqtt.broker")?.trimmingCharacters(in: .whitespaces), !broker.isEmpty else {
            for key in ["mqtt.hub", "mqtt.username", "mqtt.client_id"] where !(string(key) ?? "").isEmpty {
                report(key, "has no effect without mqtt.broker; add broker: mqtt://HOST:1883 or remove it")
            }
            return nil
        }
        guard let address = brokerAddress(broker, key: "mqtt.broker", credentials: "mqtt.username and mqtt.password") else { return nil }
        var hub = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "herald"
        if let name = string("mqtt.hub")?.trimmingCharacters(in: .whitespaces), !name.isEmpty {
            if MQTTSettings.isTopicName(name) { hub = name } else {
                report("mqtt.hub", "'\(name)' cannot be a topic level; use letters, digits, - _ and . (no / + # or spaces), like shop-12")
            }
        }
        var settings = MQTTSettings(broker: address, hub: hub)
        if let clientID = string("mqtt.client_id")?.trimmingCharacters(in: .whitespaces), !clientID.isEmpty {
            if clientID.utf8.count <= 65_535 && !clientID.contains(where: { $0.isWhitespace }) { settings.clientID = clientID } else {
                report("mqtt.client_id", "'\(clientID)' must have no spaces; leave it out to use the hub name")
            }
        }
        if layout.listItems["mqtt.groups"] != nil {
            for group in (layout.listItems["mqtt.groups"] ?? []) where !group.isEmpty {
                if MQTTSettings.isTopicName(group) { settings.groups.append(group) } else {
                    report("mqtt.groups", "'\(group)' cannot be a topic level; use letters, digits, - _ and ., like shops-north")
                }
            }
        }
        settings.username = string("mqtt.username").flatMap { $0.isEmpty ? nil : $0 }
        settings.password = string("mqtt.password").flatMap { $0.isEmpty ? nil : $0 }
        if settings.password != nil && settings.username == nil {
            report("mqtt.password", "a password needs mqtt.username")
        }
        settings.caFile = readableFile("mqtt.ca")
        settings.certificateFile = readableFile("mqtt.cert")
        settings.keyFile = readableFile("mqtt.key")
        if (settings.certificateFile == nil) != (settings.keyFile == nil) {
            report(settings.certificateFile == nil ? "mqtt.key" : "mqtt.cert", "a client certificate needs both mqtt.cert and mqtt.key")
        }
        if !address.tls, let key = ["mqtt.ca", "mqtt.cert", "mqtt.key"].first(where: { layout.lines[$0] != nil && !(string($0) ?? "").isEmpty }) {
            report(key, "is only used over TLS; write the broker as mqtts://")
        }
        settings.keepalive = duration("mqtt.keepalive", range: .seconds(5) ... .seconds(3600)) ?? settings.keepalive
        settings.healthInterval = duration("mqtt.health_interval", range: .seconds(1) ... .seconds(3600)) ?? settings.healthInterval
        return settings
    }

    /// `mqtt://HOST[:PORT]` or `mqtts://...` read, or nil after reporting what is wrong under `key`.
    mutating func brokerAddress(_ broker: String, key: String, credentials: String) -> BrokerAddress? {
        do {
            return try BrokerAddress(broker)
        } catch {
            switch error {
            case .notAnAddress: report(key, "\(error) (credentials go in \(credentials))")
            case .portOutOfRange: report(key, error.description)
            }
            return nil
        }
    }

    /// A PEM file Herald can read, relative to the config file.
    mutating func readableFile(_ key: String) -> String? {
        guard let written = string(key)?.trimmingCharacters(in: .whitespaces), !written.isEmpty else { return nil }
        let path = relativeToFile(written)
        guard FileManager.default.isReadableFile(atPath: path) else {
            report(key, "cannot read \(path); give a PEM file this user may read")
            return nil
        }
        return path
    }
}

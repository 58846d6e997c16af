/// Every key Herald reads, with its kind; the defaults are written in `Config/herald.yaml`.
///
/// Keys not listed here are typos or leftovers; `herald config check` names them.
enum ConfigSchema {
    enum Kind {
        /// One value.
        case scalar
        /// A list of values.
        case list
        /// A mapping whose keys the user chooses (voice aliases, phrases per language).
        case openMapping
        /// Named entries, each a section of fields (`reminders.list.medication.text`).
        case records
    }

    static let keys: [String: Kind] = [
        "sink": .scalar, "sounds": .scalar,
        "safeguard.min_volume": .scalar, "safeguard.target_volume": .scalar, "safeguard.max_volume": .scalar,
        "safeguard.duck_level": .scalar, "safeguard.ramp_ms": .scalar,
        "safeguard.lead_in": .scalar, "safeguard.mute": .scalar, "safeguard.lead_in_sinks": .openMapping,
        "safeguard.lead_in_by_class.bluetooth": .scalar, "safeguard.lead_in_by_class.hdmi": .scalar,
        "safeguard.lead_in_by_class.usb": .scalar, "safeguard.lead_in_by_class.builtin": .scalar,
        "safeguard.lead_in_by_class.virtual": .scalar, "safeguard.lead_in_by_class.unknown": .scalar,
        "database.path": .scalar,
        "speech.engine": .scalar, "speech.command": .scalar, "speech.command_timeout_ms": .scalar,
        "speech.language": .scalar, "speech.voice": .scalar, "speech.rate": .scalar, "speech.pitch": .scalar,
        "speech.currency": .scalar, "speech.packs": .scalar,
        "speech.voices": .openMapping, "speech.phrases": .openMapping,
        "speech.piper.python": .scalar, "speech.piper.model": .scalar, "speech.piper.threads": .scalar,
        "speech.piper.timeout_ms": .scalar, "speech.piper.voices": .openMapping,
        "cache.path": .scalar, "cache.max_bytes": .scalar, "cache.warm": .list,
        "api.listen": .scalar, "api.tokens": .openMapping, "api.max_body_bytes": .scalar,
        "api.max_text_chars": .scalar, "api.rate_per_minute": .scalar, "api.idle_timeout": .scalar,
        "api.body_timeout": .scalar, "api.max_connections": .scalar, "api.max_connections_per_client": .scalar,
        "api.hostnames": .list, "api.signing_secrets": .openMapping, "api.require_signature": .list,
        "api.signature_tolerance": .scalar,
        "queue.limit": .scalar, "queue.coalesce_payments_over": .scalar, 
        "queue.request_id_retention_days": .scalar, "history.retention_days": .scalar,
        "priorities.critical.mute": .scalar, "priorities.critical.max_age": .scalar,
        "priorities.high.mute": .scalar, "priorities.high.max_age": .scalar,
        "priorities.normal.mute": .scalar, "priorities.normal.max_age": .scalar,
        "priorities.low.mute": .scalar, "priorities.low.max_age": .scalar,
        "audio_url.allow_hosts": .list, "audio_url.max_bytes": .scalar, "audio_url.connect_timeout_ms": .scalar,
        "audio_url.timeout_ms": .scalar,
        "mqtt.broker": .scalar, "mqtt.client_id": .scalar, "mqtt.hub": .scalar, "mqtt.groups": .list,
        "mqtt.username": .scalar, "mqtt.password": .scalar, "mqtt.cert": .scalar, "mqtt.key": .scalar, "mqtt.ca": .scalar,
        "mqtt.keepalive": .scalar,
        "reminders.grace": .scalar, "reminders.escalate": .scalar, "reminders.escalate_attempts": .scalar,
        "reminders.list": .records,
        "quiet_hours.windows": .list, "quiet_hours.target_volume": .scalar, "quiet_hours.time_zone": .scalar,
        "priorities.critical.quiet_hours": .scalar, "priorities.high.quiet_hours": .scalar,
        "priorities.normal.quiet_hours": .scalar, "priorities.low.quiet_hours": .scalar,
        "chimes.critical": .scalar, "chimes.high": .scalar, "chimes.normal": .scalar, "chimes.low": .scalar,
    ]

    /// Keys that hold a mapping of further known keys: every proper prefix of a known key
    /// (`priorities`, `priorities.low`).
    static let sections: Set<String> = Set(keys.keys.flatMap { key in
        let parts = key.split(separator: ".")
        return (1..<parts.count).map { parts[..<$0].joined(separator: ".") }
    })

    /// Keys that were removed, with what replaced them, so an old file gets a useful message.
    static let replaced: [String: String] = [
        "queue.low_max_age_s": "priorities.low.max_age (a duration such as 300s or 5m)",
        "safeguard.lead_in_ms": "safeguard.lead_in_by_class (bluetooth: 700ms, ...) or safeguard.lead_in_sinks (a sink's name: 300ms)",
    ]

    /// The known key closest to `key`, to suggest for a typo.
    static func suggestion(for key: String) -> String? {
        let candidates = Array(keys.keys) + Array(sections)
        let scored = candidates.map { ($0, editDistance($0, key)) }.min { $0.1 < $1.1 }
        guard let (best, distance) = scored, distance <= max(2, key.count / 3) else { return nil }
        return best
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1,
                                 previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

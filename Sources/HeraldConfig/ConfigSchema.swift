/// Every key Herald reads, with its kind; the defaults are written in `Config/herald.yaml`.
///
/// Keys not listed here are typos or leftovers; `herald config check` names them.
enum ConfigSchema {
    enum Kind {
        /// One value.
        case scalar
        /// A list of values.
        case list
        /// A mapping whose keys the user chooses (voice aliases, sinks' lead-ins).
        case openMapping
        /// A mapping whose keys the user chooses, each a single value or a section of name: value
        /// lines (`speech.phrases.es: "..."` or `speech.phrases.es.summary: "..."`).
        case openMappingOfSections
        /// Named entries, each a section of fields (`reminders.list.medication.text`).
        case records
        /// Named lists (`groups.downstairs: [kitchen, living]`).
        case namedLists
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
        "speech.voices": .openMapping, "speech.phrases": .openMappingOfSections,
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
        "history.audio_retention": .scalar, "history.audio_max_bytes": .scalar,
        "priorities.critical.mute": .scalar, "priorities.critical.max_age": .scalar,
        "priorities.high.mute": .scalar, "priorities.high.max_age": .scalar,
        "priorities.normal.mute": .scalar, "priorities.normal.max_age": .scalar,
        "priorities.low.mute": .scalar, "priorities.low.max_age": .scalar,
        "audio_url.allow_hosts": .list, "audio_url.max_bytes": .scalar, "audio_url.connect_timeout_ms": .scalar,
        "audio_url.timeout_ms": .scalar,
        "mqtt.broker": .scalar, "mqtt.client_id": .scalar, "mqtt.hub": .scalar, "mqtt.groups": .list,
        "mqtt.username": .scalar, "mqtt.password": .scalar, "mqtt.cert": .scalar, "mqtt.key": .scalar, "mqtt.ca": .scalar,
        "mqtt.keepalive": .scalar, "mqtt.health_interval": .scalar,
        "fleet.broker": .scalar, "fleet.username": .scalar, "fleet.password": .scalar, "fleet.ca": .scalar,
        "fleet.database": .scalar, "fleet.listen": .scalar, "fleet.name": .scalar, "fleet.events_retention": .scalar,
        "fleet.session_expiry": .scalar,
        "fleet.alarms.offline_after": .scalar, "fleet.alarms.unacknowledged_after": .scalar,
        "fleet.alarms.low_disk": .scalar, "fleet.alarms.webhook": .scalar,
        "fleet.tokens": .openMapping, "fleet.tls_cert": .scalar, "fleet.tls_key": .scalar, "fleet.share_group": .scalar,
        "reminders.grace": .scalar, "reminders.escalate": .scalar, "reminders.escalate_attempts": .scalar,
        "reminders.list": .records, "calendars": .records, "buttons": .records,
        "quiet_hours.windows": .list, "quiet_hours.target_volume": .scalar, "quiet_hours.time_zone": .scalar,
        "priorities.critical.quiet_hours": .scalar, "priorities.high.quiet_hours": .scalar,
        "priorities.normal.quiet_hours": .scalar, "priorities.low.quiet_hours": .scalar,
        "rooms": .records, "groups": .namedLists, "defaults.rooms": .list,
        "priorities.critical.rooms": .list, "priorities.high.rooms": .list,
        "priorities.normal.rooms": .list, "priorities.low.rooms": .list,
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

    /// The known keys and sections as UTF-8, in a fixed order, made once: a file with thousands
    /// of unknown keys asks for thousands of suggestions.
    /// Grouped by depth (the number of dots): a key is compared only with those at its own depth,
    /// since a typo in a name does not add or drop a level (a section written at the wrong level
    /// is several characters away from any key anyway).
    private static let candidates: [Int: [(name: String, bytes: [UInt8])]] =
        Dictionary(grouping: (Array(keys.keys) + Array(sections)).sorted().map { ($0, Array($0.utf8)) }) { candidate in
            candidate.1.count { $0 == UInt8(ascii: ".") }
        }

    /// The known key closest to `key`, to suggest for a typo.
    static func suggestion(for key: String) -> String? {
        let target = Array(key.utf8)
        let reach = max(2, key.count / 3)
        // Two rows of the distance table, made once for every candidate.
        var rows = [Int](repeating: 0, count: 2 * (target.count + 1))
        var best: (name: String, distance: Int)?
        for candidate in candidates[target.count { $0 == UInt8(ascii: ".") }] ?? [] {
            // Only a closer one than the best so far, and within the typo's reach, is of interest.
            let bound = min(reach, (best?.distance ?? Int.max) - 1)
            guard bound >= 0, abs(candidate.bytes.count - target.count) <= bound else { continue }
            if let distance = editDistance(candidate.bytes, target, atMost: bound, rows: &rows) {
                best = (candidate.name, distance)
            }
        }
        return best?.name
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let b = Array(b.utf8)
        var rows = [Int](repeating: 0, count: 2 * (b.count + 1))
        return editDistance(Array(a.utf8), b, atMost: Int.max - 1, rows: &rows)!
    }

    /// The Levenshtein distance of `a` and `b` (in bytes of UTF-8: keys are ASCII names), or nil
    /// when it is above `bound`: once a whole row is above the bound the result is too, so the
    /// work stops there. `rows` holds at least 2 * (b.count + 1) entries to work in. Written with
    /// buffers and plain comparisons: a debug build runs it thousands of times per file.
    static func editDistance(_ a: [UInt8], _ b: [UInt8], atMost bound: Int, rows: inout [Int]) -> Int? {
        guard !a.isEmpty else { return b.count <= bound ? b.count : nil }
        guard !b.isEmpty else { return a.count <= bound ? a.count : nil }
        let width = b.count + 1
        return a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                rows.withUnsafeMutableBufferPointer { rows -> Int? in
                    var previous = rows.baseAddress!, current = rows.baseAddress! + width
                    var j = 0
                    while j < width { previous[j] = j; j += 1 }
                    var i = 1
                    while i <= a.count {
                        current[0] = i
                        var rowMinimum = i
                        let letter = a[i - 1]
                        j = 1
                        while j < width {
                            var value = previous[j - 1] + (letter == b[j - 1] ? 0 : 1)
                            if previous[j] + 1 < value { value = previous[j] + 1 }
                            if current[j - 1] + 1 < value { value = current[j - 1] + 1 }
                            current[j] = value
                            if value < rowMinimum { rowMinimum = value }
                            j += 1
                        }
                        if rowMinimum > bound { return nil }
                        swap(&previous, &current)
                        i += 1
                    }
                    return previous[b.count] <= bound ? previous[b.count] : nil
                }
            }
        }
    }
}

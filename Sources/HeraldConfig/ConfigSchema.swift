/// Every key Herald reads, with its default as written in `Config/herald.yaml`.
///
/// Keys not listed here are typos or leftovers; `herald config check` names them.
enum ConfigSchema {
    /// Dotted key -> default, in the order of the commented file.
    static let keys: [(key: String, defaultValue: String)] = [
        ("sink", ""),
        ("safeguard.min_volume", "50%"),
        ("safeguard.target_volume", "70%"),
        ("safeguard.max_volume", "100%"),
        ("safeguard.duck_level", "30%"),
        ("safeguard.ramp_ms", "150"),
        ("safeguard.lead_in_ms", "150"),
        ("safeguard.mute", "override"),
        ("database.path", ""),
    ]

    static let leafKeys = Set(keys.map(\.key))
    /// Keys that hold a mapping of further keys.
    static let sections: Set<String> = Set(keys.compactMap { entry in
        entry.key.split(separator: ".").count > 1 ? String(entry.key.split(separator: ".")[0]) : nil
    })

    /// The known key closest to `key`, to suggest for a typo.
    static func suggestion(for key: String) -> String? {
        let candidates = Array(leafKeys) + Array(sections)
        let scored = candidates.map { ($0, editDistance($0, key)) }.min { $0.1 < $1.1 }
        guard let (best, distance) = scored, distance <= max(2, key.count / 3) else { return nil }
        return best
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1,
                                 previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}

extension AnnouncementRecord {
    /// What `herald say`, `pay` and `play` print when done: `played Hello (cache) on speakers`,
    /// or why nothing was heard. The daemon answers it as text/plain to a client that asks
    /// (the lean `herald` front), so the line is written in one place.
    public var summaryLine: String {
        if outcome == .suppressedMuted {
            return "not played: the sink is muted and safeguard.mute is respect"
        }
        let source = clipSource.map { " (\($0.rawValue))" } ?? ""
        return "\(outcome?.rawValue ?? "?") \(body)\(source) on \(sink ?? "?")"
    }
}

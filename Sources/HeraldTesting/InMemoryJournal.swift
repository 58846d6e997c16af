import HeraldCore

/// A journal in memory that remembers every save, to check it was written before the first change.
public actor InMemoryJournal: RestoreJournal {
    /// Each sink's entry.
    public var entries: [String: JournalEntry] = [:]
    public var saves = 0
    /// Where saves are noted beside the sound changes, to check the journal comes first.
    public let sound: InMemorySoundSystem?

    public init(noting sound: InMemorySoundSystem? = nil, entry: JournalEntry? = nil) {
        self.sound = sound
        if let entry { entries[entry.sinkName] = entry }
    }

    /// The one pending entry of a test that uses one sink (the first by name when there are more).
    public var entry: JournalEntry? { entries.values.min { $0.sinkName < $1.sinkName } }

    public func save(_ entry: JournalEntry) async throws {
        entries[entry.sinkName] = entry
        saves += 1
        await sound?.note("journal saved")
    }

    public func pending() async throws -> [JournalEntry] { entries.values.sorted { $0.sinkName < $1.sinkName } }
    public func clear(sinkName: String) async throws { entries[sinkName] = nil }
}

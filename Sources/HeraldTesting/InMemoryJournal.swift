import HeraldCore

/// A journal in memory that remembers every save, to check it was written before the first change.
public actor InMemoryJournal: RestoreJournal {
    public var entry: JournalEntry?
    public var saves = 0
    /// Where saves are noted beside the sound changes, to check the journal comes first.
    public let sound: InMemorySoundSystem?

    public init(noting sound: InMemorySoundSystem? = nil, entry: JournalEntry? = nil) {
        self.sound = sound
        self.entry = entry
    }

    public func save(_ entry: JournalEntry) async throws {
        self.entry = entry
        saves += 1
        await sound?.note("journal saved")
    }

    public func pending() async throws -> JournalEntry? { entry }
    public func clear() async throws { entry = nil }
}

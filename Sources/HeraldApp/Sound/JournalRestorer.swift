import HeraldCore

/// `herald restore`: applies a journal left by a Herald process that died mid-announcement.
public struct JournalRestorer: Sendable {
    let context: HeraldContext

    public init(context: HeraldContext) { self.context = context }

    /// Restores the pending journal, every sink it names, under the safeguard lock.
    /// - Returns: what was restored on each sink; empty when nothing was pending.
    /// `sound` is a resident connection to use; without one, a connection is made for it.
    public func restore(using sound: (any SoundConnection)? = nil) async throws -> [Safeguard.Restoration] {
        guard try await !context.journal.pending().isEmpty else { return [] }
        let sound: any SoundConnection = if let sound { sound } else { try await context.connectSound() }
        let lock = try await ProcessLock.acquire(path: context.lockPath, timeout: .seconds(30))
        defer { lock.release() }
        return try await context.recoverPendingJournal(with: context.safeguard(on: sound), on: sound)
    }
}

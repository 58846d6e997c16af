import HeraldCore
import HeraldStore

/// The insert of a new announcement's log row, which may hold back a few milliseconds for the
/// announcement's own safeguard to open first.
///
/// The row (a synced SQLite commit) and the sink's restore journal (a synced file beside the
/// database) go to one disk, where two syncs at once wait for each other's file system commit:
/// the journal must be on disk before the first change to the sink, the row only before the
/// sender's answer. An announcement that plays at once lets its journal go first; the row
/// starts when the safeguard is open (`start()`), or at `holdAtMost`, whichever comes sooner.
final class RowInsert: Sendable {
    private let gate: AsyncStream<Void>.Continuation
    private let task: Task<Bool, any Error>

    /// Starts inserting `record` now, or within `holdAtMost` when given.
    init(_ record: AnnouncementRecord, into store: AnnouncementStore, holdAtMost: Duration?) {
        let (opened, gate) = AsyncStream<Void>.makeStream()
        self.gate = gate
        task = Task {
            for await _ in opened { break }
            return try await store.insertIfNew(record)
        }
        guard let holdAtMost else {
            gate.finish()
            return
        }
        Task {
            try? await Task.sleep(for: holdAtMost)
            gate.finish()
        }
    }

    /// Lets the insert begin now (again: nothing).
    func start() { gate.finish() }

    /// True once the row is in the log; false when the request id was there already.
    var inserted: Bool { get async throws { try await task.value } }
}

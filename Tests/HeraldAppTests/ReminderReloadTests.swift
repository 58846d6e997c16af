import Foundation
@testable import HeraldApp
import HeraldConfig
import HeraldCore
import HeraldStore
import Logging
import Synchronization
import Testing

/// A reload (start, config change) reads every reminder and replaces what is in memory. An
/// acknowledgement made while that read is under way must not be undone by it. No sound server:
/// the scheduler's loop is not started, nothing is said.
@Suite struct ReminderReloadTests {
    /// Set by the test once its acknowledgement has returned; the slowed read waits for it (or a
    /// second, when the acknowledgement waits for the reload, as it should).
    final class Gate: Sendable {
        private let state = Mutex((armed: false, readDone: false, acknowledged: false))
        func arm() { state.withLock { $0.armed = true } }
        var readDone: Bool { state.withLock { $0.readDone } }
        func acknowledged() { state.withLock { $0.acknowledged = true } }

        /// After a read while armed: says so, then holds the answer back.
        func afterRead() async {
            guard state.withLock({ state in
                defer { state.armed = false }
                return state.armed
            }) else { return }
            state.withLock { $0.readDone = true }
            for _ in 0..<100 where !state.withLock({ $0.acknowledged }) {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    @Test func anAcknowledgementDuringAReloadStands() async throws {
        let folder = NSTemporaryDirectory() + "herald-reminder-reload-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let context = try HeraldContext(configuration: HeraldConfiguration.defaults(stateDirectory: folder), logger: logger)
        let daemon = AnnouncementDaemon(context: context, connector: SoundConnector(logger: logger, onConnect: { _ in }, changed: {}))
        let gate = Gate()
        let service = ReminderService(live: LiveContext(context), daemon: daemon, now: { Date() }, readReminders: { database in
            let rows = try await database.reminders()
            await gate.afterRead()
            return rows
        })

        // Said at 08:00 and waiting for someone to answer.
        let due = Date(timeIntervalSince1970: 1_790_000_000)
        let reminder = Reminder(id: "pills", bodyKind: .text, body: "Time to take your medication", timeZone: "UTC",
                                schedule: .daily(times: [LocalTime(hour: 8, minute: 0)], days: []),
                                repeats: ReminderRepeat(every: .seconds(300), times: 3), origin: .api, createdAt: due)
        let waiting = ReminderState(nextDue: due.addingTimeInterval(86_400),
                                    waiting: .init(due: due, said: 1, nextRepeat: Date().addingTimeInterval(300)))
        try await context.database.saveReminder(StoredReminder(reminder: reminder, state: waiting))
        await service.configChanged()
        #expect(await service.waiting().map(\.reminder.id) == ["pills"])

        // A reload whose read has happened but whose answer is not applied yet...
        gate.arm()
        let reload = Task { await service.configChanged() }
        for _ in 0..<500 where !gate.readDone { try await Task.sleep(for: .milliseconds(5)) }
        #expect(gate.readDone)
        // ...and the caregiver answers meanwhile.
        _ = try await service.acknowledge(id: "pills", by: "test")
        gate.acknowledged()
        await reload.value

        #expect(await service.waiting().isEmpty, "the reload put back the state it read before the acknowledgement")
        #expect(try await context.database.reminder(id: "pills")?.state.waiting == nil)
    }
}

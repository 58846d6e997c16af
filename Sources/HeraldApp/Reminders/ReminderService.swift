import Foundation
import HeraldCore
import HeraldStore
import Logging

/// Carries out the reminder scheduler's decisions in the daemon: says reminders through the one
/// queue (source `reminder`), logs the missed, acknowledges, and tells the caregiver.
///
/// The scheduler (`ReminderScheduler`) decides; this actor keeps the reminders and their state
/// in SQLite and in memory, sleeps until the next due time, and does the I/O.
public actor ReminderService {
    /// A reminder with what the API shows of it.
    public struct Listing: Sendable, Encodable {
        public var reminder: Reminder
        public var nextDue: Date?
        /// The occurrence said and waiting for an acknowledgement.
        public var waitingSince: Date?
        public var saidTimes: Int?

        enum CodingKeys: String, CodingKey {
            case nextDue = "next_due", waitingSince = "waiting_since", saidTimes = "said_times"
        }

        public func encode(to encoder: any Encoder) throws {
            try reminder.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(nextDue, forKey: .nextDue)
            try container.encodeIfPresent(waitingSince, forKey: .waitingSince)
            try container.encodeIfPresent(saidTimes, forKey: .saidTimes)
        }
    }

    /// Why an acknowledgement or a deletion was refused.
    public enum Refusal: Error, Equatable {
        case unknown(String)
        case notWaiting(String)
        case ownedByConfig(String)
        case ownedByCalendar(String)
    }

    private var live: LiveContext
    private let daemon: AnnouncementDaemon
    private let now: @Sendable () -> Date
    private var reminders: [String: StoredReminder] = [:]
    private let (changes, changed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    /// Webhook deliveries under way, each removed by itself when it ends (cancelled at the end of `run`).
    private var escalations: [UUID: Task<Void, Never>] = [:]
    /// Every read-decide-write of `reminders` that spans an await, one at a time (`serially`).
    private let jobs = SerialJobs()
    /// Reads every stored reminder (a test slows it down to widen the window a reload leaves open).
    private let readReminders: @Sendable (AppDatabase) async throws -> [StoredReminder]

    /// - Parameter now: the wall clock; reminders are due at wall-clock times.
    public init(live: LiveContext, daemon: AnnouncementDaemon, now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(live: live, daemon: daemon, now: now, readReminders: { try await $0.reminders() })
    }

    init(live: LiveContext, daemon: AnnouncementDaemon, now: @escaping @Sendable () -> Date,
         readReminders: @escaping @Sendable (AppDatabase) async throws -> [StoredReminder]) {
        self.live = live
        self.daemon = daemon
        self.now = now
        self.readReminders = readReminders
    }

    var context: HeraldContext { live.value }
    var database: AppDatabase { context.database }
    var logger: Logger { context.logger }

    /// Loads the reminders (the config's put in place first) and says them as they come due,
    /// until cancelled.
    public func run() async {
        await configChanged()
        await resumeEscalations()
        // One listener for the whole run. An AsyncStream ends for good once a task waiting on it
        // is cancelled, so the timeout comes in through the same stream rather than racing a
        // listener that would have to be cancelled (that ended the stream and made this loop spin).
        var wakeUps = changes.makeAsyncIterator()
        while !Task.isCancelled {
            await step()
            let wake = reminders.values.compactMap { ReminderScheduler.wake($0.state) }.min()
            // Looks again at least every 30 s: the wall clock may jump (NTP, a suspended hub).
            let delay = min(30, max(0.005, (wake ?? .distantFuture).timeIntervalSince(now())))
            let timer = Task { [changed] in
                if (try? await Task.sleep(for: .seconds(delay))) != nil { changed.yield() }
            }
            _ = await wakeUps.next()
            timer.cancel()
        }
        for task in escalations.values { task.cancel() }
    }

    /// Starts a delivery in a task of its own: a slow or failing webhook never holds a reminder back.
    private func startEscalation(_ delivery: @escaping @Sendable () async -> Void) {
        let id = UUID()
        // Inserted before the task can reach the actor again, so its removal always finds it.
        escalations[id] = Task {
            await delivery()
            escalationEnded(id)
        }
    }

    private func escalationEnded(_ id: UUID) { escalations[id] = nil }

    /// Webhook deliveries the last stop cut off go on where they were.
    private func resumeEscalations() async {
        do {
            let escalator = Escalator(database: database, client: context.httpClient,
                                      attempts: context.configuration.reminders.escalateAttempts, logger: logger)
            for row in try await database.unfinishedEscalations() {
                startEscalation { await escalator.resume(row) }
            }
        } catch {
            logger.error("could not read the escalations left by the last stop: \(error)")
        }
    }

    /// The config's reminders (`reminders.list`) after a start or a reload.
    public func configChanged() async {
        do {
            try await serially {
                try await database.syncConfigReminders(context.configuration.reminders.list, now: now())
                try await reload()
            }
            for reminder in context.configuration.reminders.list { await prerender(reminder) }
        } catch {
            logger.error("could not load the reminders: \(error)")
        }
        changed.yield()
    }

    /// A calendar's firings after a read (`CalendarService`): stored in place of the last read's
    /// (`AppDatabase.syncCalendarFirings`) and scheduled like any reminder. `calendar` nil: the
    /// calendars not in `keeping` were removed from the config, and their firings go.
    public func syncCalendar(_ calendar: String?, firings: [(reminder: Reminder, at: Date)], keeping: Set<String> = []) async {
        do {
            try await serially {
                // A calendar's loop cancelled by a reload (its calendar perhaps removed) while it
                // waited its turn: what it read is not written (the removal may have run first).
                guard calendar == nil || !Task.isCancelled else { return }
                try await database.syncCalendarFirings(calendar: calendar, firings, keeping: keeping, now: now())
                try await reload()
            }
        } catch {
            logger.error("could not store the firings of calendar \(calendar ?? "(removed)"): \(error)")
        }
        changed.yield()
    }

    /// Replaces what is in memory with what is stored: only inside a job (`serially`), so no
    /// `step` or `acknowledge` can change a reminder between the read and the replacement.
    private func reload() async throws {
        reminders = Dictionary(uniqueKeysWithValues: try await readReminders(database).map { ($0.reminder.id, $0) })
    }

    /// Runs `body` when every earlier job has finished: one job at a time, in order of arrival.
    /// Every read-decide-write of `reminders` that spans an await is a job (as `Safeguard` does):
    /// an actor is reentrant, and a reload that replaced the dictionary after its read undid a
    /// `step` or an acknowledgement made meanwhile (and could escalate twice).
    private func serially<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        try await jobs.serially(body)
    }

    /// Adds a reminder (API, CLI): stored, rendered into the clip cache, scheduled.
    public func add(_ reminder: Reminder) async throws -> Listing {
        let stored = StoredReminder(reminder: reminder, state: ReminderScheduler.initialState(for: reminder, now: now()))
        try await serially {
            try await database.saveReminder(stored)
            reminders[reminder.id] = stored
        }
        await prerender(reminder)
        changed.yield()
        return listing(stored)
    }

    /// Deletes one made through the API or CLI; the config's are changed in the file.
    public func remove(id: String) async throws {
        try await serially {
            guard let stored = reminders[id] else { throw Refusal.unknown(id) }
            guard stored.reminder.origin != .config else { throw Refusal.ownedByConfig(id) }
            guard stored.reminder.origin != .calendar else { throw Refusal.ownedByCalendar(id) }
            try await database.deleteReminder(id: id)
            reminders[id] = nil
        }
        changed.yield()
    }

    /// Someone answered: the repeats stop, and who and when is logged.
    public func acknowledge(id: String, by who: String) async throws -> ReminderAck {
        let ack = try await serially {
            guard var stored = reminders[id] else { throw Refusal.unknown(id) }
            guard let due = stored.state.waiting?.due, ReminderScheduler.acknowledge(&stored.state) else {
                throw Refusal.notWaiting(id)
            }
            let ack = ReminderAck(reminderID: id, dueAt: due, ackedAt: now(), ackedBy: who)
            reminders[id] = stored
            try await database.saveReminderStates([id: stored.state])
            try await database.recordAck(ack)
            return ack
        }
        HeraldMetrics.reminderAcknowledged()
        logger.notice("reminder acknowledged", metadata: ["reminder": "\(id)", "by": "\(who)"])
        changed.yield()
        return ack
    }

    /// The caregiver's report of the last `days` days (`ReminderReport`).
    public func report(days: Int) async throws -> ReminderReport {
        let to = now(), from = to.addingTimeInterval(-Double(days) * 86_400)
        let history = try await database.reminderHistory(since: from)
        return ReminderReport(firings: history.firings, acks: history.acks, from: from, to: to)
    }

    public func list() -> [Listing] {
        reminders.values.sorted { $0.reminder.createdAt < $1.reminder.createdAt }.map(listing)
    }

    public func listing(id: String) -> Listing? { reminders[id].map(listing) }

    /// The next `limit` due times across every reminder, soonest first.
    public func upcoming(limit: Int) -> [(reminder: Reminder, due: Date)] {
        var result: [(Reminder, Date)] = []
        for stored in reminders.values {
            var due = stored.state.nextDue
            while let moment = due, result.filter({ $0.0.id == stored.reminder.id }).count < limit {
                result.append((stored.reminder, moment))
                due = stored.reminder.nextDue(after: moment)
            }
        }
        return Array(result.sorted { $0.1 < $1.1 }.prefix(limit))
    }

    /// The reminders said and not yet acknowledged.
    public func waiting() -> [Listing] { list().filter { $0.waitingSince != nil } }

    private func listing(_ stored: StoredReminder) -> Listing {
        Listing(reminder: stored.reminder, nextDue: stored.state.nextDue, waitingSince: stored.state.waiting?.due,
                saidTimes: stored.state.waiting?.said)
    }

    /// Renders a text reminder into the clip cache now, so its time never waits on synthesis.
    private func prerender(_ reminder: Reminder) async {
        guard reminder.bodyKind == .text else { return }
        do {
            _ = try await context.makeRenderer().warm(text: reminder.body, language: reminder.language, voice: reminder.voice)
        } catch {
            logger.warning("could not render reminder \(reminder.id) ahead: \(error)")
        }
    }

    // MARK: - Carrying out the scheduler's decisions

    private func step() async { await serially { await stepNow() } }

    private func stepNow() async {
        let scheduler = ReminderScheduler(grace: context.configuration.reminders.grace)
        let moment = now()
        var changedStates: [String: ReminderState] = [:]
        var work: [(Reminder, ReminderAction)] = []
        for (id, var stored) in reminders {
            let actions = scheduler.step(stored.reminder, state: &stored.state, now: moment)
            guard !actions.isEmpty || stored.state != reminders[id]?.state else { continue }
            reminders[id] = stored
            changedStates[id] = stored.state
            work += actions.map { (stored.reminder, $0) }
        }
        guard !changedStates.isEmpty else { return }
        // The state first: a crash after this says nothing twice (the request ids would catch it anyway).
        do { try await database.saveReminderStates(changedStates) } catch {
            logger.error("could not save the reminders' state: \(error)")
        }
        for (reminder, action) in work.sorted(by: { Self.due($0.1) < Self.due($1.1) }) {
            await carryOut(action, for: reminder, at: moment)
        }
    }

    private static func due(_ action: ReminderAction) -> Date {
        switch action {
        case .say(let due, _, _), .missed(let due, _), .escalate(let due, _): due
        }
    }

    private func carryOut(_ action: ReminderAction, for reminder: Reminder, at moment: Date) async {
        switch action {
        case .say(let due, let late, let time):
            var request = AnnouncementRequest(
                body: reminder.bodyKind == .file ? .file(path: reminder.body) : .text(reminder.body),
                priority: reminder.priority, source: .reminder, client: "scheduler",
                language: reminder.language, voice: reminder.voice,
                requestID: "\(reminder.id)/\(Int(due.timeIntervalSince1970))/\(time)")
            request.reminder = .init(id: reminder.id, due: due, late: late)
            request.rooms = reminder.rooms
            HeraldMetrics.reminderFired(late ? "late" : "on_time")
            do {
                _ = try await daemon.submit(request)
                logger.info("reminder said", metadata: ["reminder": "\(reminder.id)", "due": "\(due)", "time": "\(time)",
                                                        "late": "\(late)"])
            } catch {
                logger.error("could not queue reminder \(reminder.id): \(error)")
            }
        case .missed(let due, let count):
            var record = AnnouncementRecord(source: .reminder, priority: reminder.priority, bodyKind: reminder.bodyKind,
                                            body: reminder.body, language: reminder.language, voice: reminder.voice,
                                            queuedAt: due)
            record.client = "scheduler"
            record.reminderID = reminder.id
            record.outcome = .missed
            record.finishedAt = moment
            HeraldMetrics.reminderFired("missed")
            let grace = DurationText.format(context.configuration.reminders.grace)
            record.error = count == 1 ? "due at \(Self.stamp(due)), more than reminders.grace (\(grace)) ago"
                : "\(count) occurrences from \(Self.stamp(due)) passed while the hub could not say them"
            await daemon.log(record, in: context.store)
        case .escalate(let due, let reason):
            guard let url = reminder.escalate ?? context.configuration.reminders.escalate else { return }
            let event = Escalator.Event(event: "reminder.\(reason.rawValue)", reminder: reminder.id, text: reminder.body,
                                        due: due, outcome: reason.rawValue, priority: reminder.priority.rawValue, sentAt: moment)
            let escalator = Escalator(database: database, client: context.httpClient,
                                      attempts: context.configuration.reminders.escalateAttempts, logger: logger)
            startEscalation { HeraldMetrics.reminderEscalated(delivered: await escalator.send(event, to: url)) }
        }
    }

    static func stamp(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
}

import AsyncHTTPClient
import Foundation
import HeraldConfig
import HeraldCore
import HeraldWeb
import Logging
import ServiceLifecycle

/// Opens and closes the fleet's alarms and sends their notices, a `Service` of every console.
///
/// Every `sweepEvery`, one console at a time (a PostgreSQL advisory lock: the others skip that
/// turn) reads every hub's presence and last heartbeat, asks `AlarmRules` what alarms they call
/// for, opens what is missing and closes what is no longer wanted. The unique key of open alarms
/// makes an alarm open once even if two consoles tried. Then any console sends the notices due,
/// each claimed for a while so no other console sends it at the same time.
public struct AlarmKeeper: Service {
    let settings: FleetSettings
    let store: FleetStore
    let metrics: FleetMetrics
    let logger: Logger
    var sweepEvery: Duration = .seconds(2)
    var pruneEvery: Duration = .seconds(3600)

    public init(settings: FleetSettings, store: FleetStore, metrics: FleetMetrics, logger: Logger) {
        self.settings = settings
        self.store = store
        self.metrics = metrics
        self.logger = logger
    }

    /// Sweeps and sends in two loops, so a slow webhook never delays an alarm. A graceful
    /// shutdown cancels both at once: nothing here needs finishing (a notice being sent stays
    /// claimed until its lease ends, then any console sends it).
    public func run() async throws {
        // The hub's client, not `HTTPClient.shared`: it refuses redirects, so a webhook (or whoever
        // answers for it) cannot hand the alarm POST to another host or a loopback port.
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .herald(connectTimeout: .seconds(5)))
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await keepSweeping() }
                group.addTask { await keepSending(client: client) }
            }
        }
        try? await client.shutdown()
    }

    private func keepSweeping() async {
        var heartbeats = HeartbeatCache()
        var lastPrune = ContinuousClock.now - pruneEvery
        var failing = false
        // Moved at each failed sweep: after an outage, the other consoles' marks count for a while
        // even though none could move them (SilenceClock).
        var databaseBackAt = Date()
        var held = false
        while !Task.isCancelled {
            do {
                // Said once when silence starts being judged behind now, and once when it catches up.
                if let heardThrough = try await sweep(heartbeats: &heartbeats, databaseBackAt: databaseBackAt) {
                    let behind = Date().timeIntervalSince(heardThrough) > 5
                    if behind && !held {
                        logger.notice("fleet: hubs' silence judged as of \(heardThrough.formatted(.iso8601)), what every console has written: a console is behind")
                    } else if !behind && held {
                        logger.notice("fleet: every console has written what it received; hubs' silence judged at now again")
                    }
                    held = behind
                }
                if ContinuousClock.now - lastPrune >= pruneEvery {
                    let pruned = try await store.prune(olderThan: settings.eventsRetention)
                    if pruned > 0 { logger.info("fleet: deleted \(pruned) events older than \(settings.eventsRetention)") }
                    lastPrune = .now
                }
                if failing { logger.notice("fleet: alarms are kept again") }
                failing = false
            } catch {
                if !failing && !Task.isCancelled { logger.error("fleet: could not keep the alarms: \(String(reflecting: error)); trying again") }
                failing = true
                databaseBackAt = Date()
            }
            try? await Task.sleep(for: sweepEvery)
        }
    }

    private func keepSending(client: HTTPClient) async {
        var budget = NoticeBudget(now: .now)
        while !Task.isCancelled {
            do {
                try await sendNotices(budget: &budget, client: client)
            } catch {
                if !Task.isCancelled { logger.error("fleet: could not read the alarm notices due: \(String(reflecting: error))") }
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }

    /// One turn of the alarm rules over every hub, if no other console is taking its turn now.
    /// `heartbeats` keeps what earlier turns read: only the heartbeats that arrived since are read
    /// and decoded again (with 5,000 hubs beating every minute, about 170 a turn, not 5,000).
    /// A hub's silence is judged at the oldest console's mark (`SilenceClock`), so a heartbeat
    /// still waiting in another console's backlog is not taken for none.
    /// `now` is read once the lock is held: the wait for a connection lasts as long as an outage.
    /// Returns the time silence was judged at, nil when another console took this turn.
    @discardableResult
    func sweep(heartbeats: inout HeartbeatCache, databaseBackAt: Date = .distantPast) async throws -> Date? {
        let asked = Date()
        var judgedAt: Date?
        try await store.whileHoldingSweepLock {
            let now = Date()
            // A long wait for the connection was an outage that just ended (a pool waits for the
            // server without failing): the other consoles have had no chance to move their marks.
            let databaseBackAt = now.timeIntervalSince(asked) > 5 ? now : databaseBackAt
            let marks = try await store.consoleMarks().map {
                SilenceClock.Mark(writtenThrough: $0.writtenThrough, movedAt: now.addingTimeInterval(-$0.age))
            }
            // A console killed for good keeps receiving its share of the hubs' messages into its
            // broker session until that expires: its mark holds the rules at least as long.
            let hold = max(SilenceClock.holdAtMost, Double(settings.broker.sessionExpiry) + 10)
            let heardThrough = SilenceClock.judgedAt(now: now, marks: marks, databaseBackAt: databaseBackAt, holdAtMost: hold)
            judgedAt = heardThrough
            let presences = try await store.presences()
            try await heartbeats.refresh(for: presences, from: store)
            let open = try await store.openAlarms()
            var wanted: [WantedAlarm] = []
            for (hub, presence) in presences {
                wanted += AlarmRules.wanted(hub: hub, presence: presence, health: heartbeats[hub], thresholds: settings.alarms, now: now,
                                              heardThrough: heardThrough)
            }
            // One alarm per hub and kind: a heartbeat listing many rooms is one POST, not one a room.
            let changes = AlarmRules.changes(wanted: AlarmGrouping.grouped(wanted), open: Set(open.keys))
            for alarm in changes.open {
                if let opened = try await store.open(alarm, by: settings.name) {
                    logger.warning("fleet: alarm \(opened.id) opened: \(opened.kind) on \(opened.hub): \(opened.detail)")
                }
            }
            for key in changes.close {
                if let id = open[key], let closed = try await store.close(id: id, by: settings.name) {
                    logger.notice("fleet: alarm \(closed.id) closed: \(closed.kind) on \(closed.hub), its cause is gone")
                }
            }
        }
        return judgedAt
    }

    /// Sends every notice due now, one claimed at a time, as fast as `budget` lets them go.
    func sendNotices(budget: inout NoticeBudget, client: HTTPClient) async throws {
        while !Task.isCancelled {
            // Checked before claiming: a notice waiting for a token stays free for another console.
            if let wait = budget.wait(now: .now) {
                try? await Task.sleep(for: wait)
                continue
            }
            guard let notice = try await store.claimNotice(lease: .seconds(60)) else { return }
            guard let url = settings.webhook else {
                try await store.noticeDone(notice, error: "no fleet.alarms.webhook to send it to")
                continue
            }
            let body = AlarmNotice(notice, console: settings.name).json
            budget.spend()
            do {
                try await WebhookPost.send(body, to: url, client: client)
                try await store.noticeDone(notice)
                metrics.notice(sent: true)
                logger.notice("fleet: alarm \(notice.alarm.id) \(notice.opening ? "opening" : "closing") sent to the webhook")
            } catch {
                // Stopping: the claim runs out and whichever console comes next sends it.
                guard !Task.isCancelled else { return }
                metrics.notice(sent: false)
                let retry = Self.backoff(attempts: notice.attempts)
                logger.warning("fleet: alarm \(notice.alarm.id)'s notice not delivered (attempt \(notice.attempts)): \(error); trying again in \(retry)")
                try await store.noticeFailed(notice, error: "\(error)".clipped(HubMessageLimits.maxError), retryIn: retry)
            }
        }
    }

    /// 1 s, 2 s, 4 s ... up to 5 minutes, by the attempts the notice's row counts.
    static func backoff(attempts: Int) -> Duration {
        noticeRetries.delay(attempt: attempts - 1)
    }
    private static let noticeRetries = Backoff(initial: .seconds(1), maximum: .seconds(300))
}

/// The JSON a webhook receives when an alarm opens and when it closes (the shape of the
/// reminders' escalation: `event`, the subject, times in ISO 8601, `sent_at`).
///
/// ```json
/// {"event":"alarm_opened","alarm":17,"hub":"care-0042","kind":"offline","subject":"","state":"open",
///  "detail":"care-0042 said offline (its last will or a clean stop) at 2026-11-27T10:00:00Z",
///  "opened_at":"2026-11-27T10:05:02Z","closed_at":null,"console":"console-a","sent_at":"2026-11-27T10:05:02Z"}
/// ```
struct AlarmNotice: Encodable {
    var event: String
    var alarm: Int64
    var hub: String
    var kind: String
    var subject: String
    var state: String
    var detail: String
    var openedAt: Date
    var closedAt: Date?
    var console: String
    var sentAt = Date()

    init(_ notice: FleetStore.Notice, console: String) {
        let alarm = notice.alarm
        event = notice.opening ? "alarm_opened" : "alarm_closed"
        self.alarm = alarm.id
        hub = alarm.hub
        kind = alarm.kind
        subject = alarm.subject
        state = notice.opening ? "open" : "closed"
        detail = alarm.detail
        openedAt = alarm.openedAt
        closedAt = notice.opening ? nil : alarm.closedAt
        self.console = console
    }

    enum CodingKeys: String, CodingKey {
        case event, alarm, hub, kind, subject, state, detail, console
        case openedAt = "opened_at", closedAt = "closed_at", sentAt = "sent_at"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(event, forKey: .event)
        try container.encode(alarm, forKey: .alarm)
        try container.encode(hub, forKey: .hub)
        try container.encode(kind, forKey: .kind)
        try container.encode(subject, forKey: .subject)
        try container.encode(state, forKey: .state)
        try container.encode(detail, forKey: .detail)
        try container.encode(openedAt, forKey: .openedAt)
        try container.encode(closedAt, forKey: .closedAt)
        try container.encode(console, forKey: .console)
        try container.encode(sentAt, forKey: .sentAt)
    }

    var json: [UInt8] {
        Array((try? JSONEncoder.compact.encode(self)) ?? Data())
    }
}

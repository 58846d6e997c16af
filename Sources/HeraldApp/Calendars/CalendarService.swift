import AsyncHTTPClient
import Foundation
import HeraldCalendar
import HeraldCore
import Logging

/// Reads each calendar of `calendars:` every `poll`, plans its firings and hands them to the
/// reminder service, which says them as it says any reminder (one code path: quiet hours,
/// repeats, acknowledgements, late and missed, the caregiver's webhook).
///
/// A calendar that cannot be read keeps its last good copy (on disk, in the state folder), so a
/// restart while its server is down still says tomorrow's appointments; nothing is planned from
/// a copy that could not be parsed.
public actor CalendarService {
    /// One calendar as `GET /v1/calendars` and `herald calendar list` show it.
    public struct Status: Sendable, Encodable {
        public struct Upcoming: Sendable, Encodable {
            public var at: Date
            public var says: String
            public var starts: Date

            enum CodingKeys: String, CodingKey { case at, says, starts }
        }

        public var name: String
        /// Where it is read from, without credentials.
        public var source: String
        /// The last successful read (from the server or the file), nil before the first.
        public var lastRead: Date?
        /// Why the last read failed; nil when it worked.
        public var problem: String?
        /// Occurrences in the next 7 days.
        public var eventsThisWeek: Int
        /// Events not said and why (a line libical could not read, a rule every second), at most 5.
        public var skipped: [String] = []
        /// The next firings, soonest first.
        public var next: [Upcoming]

        enum CodingKeys: String, CodingKey {
            case name, source, problem, next, skipped
            case lastRead = "last_read", eventsThisWeek = "events_this_week"
        }
    }

    /// How far ahead firings are planned (and `next` shows).
    static let horizon: TimeInterval = 8 * 86_400
    /// An alarm may come this long before its event (`TRIGGER:-P30D`).
    static let longestAlarm: TimeInterval = 31 * 86_400

    private let live: LiveContext
    private let reminders: ReminderService
    private let now: @Sendable () -> Date
    private var loops: [String: Task<Void, Never>] = [:]
    /// When each calendar's reading began (a start or the reload that added it).
    private var since: [String: Date] = [:]
    private var statuses: [String: Status] = [:]
    /// What each calendar's last read skipped, so it is logged once per change.
    private var lastSkipped: [String: [String]] = [:]

    public init(live: LiveContext, reminders: ReminderService, now: @escaping @Sendable () -> Date = { Date() }) {
        self.live = live
        self.reminders = reminders
        self.now = now
    }

    /// Reads the calendars until cancelled.
    public func run() async {
        await configChanged()
        while (try? await Task.sleep(for: .seconds(86_400))) != nil {}
        for loop in loops.values { loop.cancel() }
    }

    /// After a start or a reload: each calendar read again from now, those removed forgotten
    /// (their firings go with them).
    public func configChanged() async {
        // Every change to the loops before the one await: a second reload arriving during it
        // finds them already replaced, and cancels these (a cancelled loop writes nothing more).
        for loop in loops.values { loop.cancel() }
        let calendars = live.value.configuration.calendars
        loops = [:]
        statuses = statuses.filter { name, _ in calendars.contains { $0.name == name } }
        since = since.filter { name, _ in calendars.contains { $0.name == name } }
        for calendar in calendars {
            if since[calendar.name] == nil { since[calendar.name] = now() }
            loops[calendar.name] = Task { await self.poll(calendar) }
        }
        await reminders.syncCalendar(nil, firings: [], keeping: Set(calendars.map(\.name)))
    }

    public func list() -> [Status] { statuses.values.sorted { $0.name < $1.name } }

    /// The calendars whose last successful read (or, never read, whose reading began) is `seconds`
    /// or more ago: the fleet console raises an alarm for each.
    public func unread(for seconds: TimeInterval) -> [String] {
        let limit = now().addingTimeInterval(-seconds)
        return since.compactMap { name, began in (statuses[name]?.lastRead ?? began) <= limit ? name : nil }.sorted()
    }

    /// Reads `calendar` every `poll` until cancelled.
    private func poll(_ calendar: CalendarSettings) async {
        let context = live.value
        let folder = (context.configuration.stateDirectory as NSString).appendingPathComponent("calendars")
        // The daemon's client; a context without one (a test's) still reads files and URLs.
        let client = context.httpClient ?? HTTPClient.shared
        let fetcher = CalendarFetcher(settings: calendar, cacheFile: (folder as NSString).appendingPathComponent("\(calendar.name).json"),
                                      httpClient: client, logger: context.logger)
        var lastProblem: String?
        repeat {
            let fetched = await fetcher.fetch()
            guard !Task.isCancelled else { return }
            // No copy at all (never read, or its file lost): what the store holds stays as it is.
            let planned = fetched.problem != nil && !fetched.fromCache ? nil
                : plan(calendar, fetched.objects, logger: context.logger, lastProblem: &lastProblem)
            HeraldMetrics.calendarRead(calendar.name, ok: fetched.problem == nil && planned != nil, at: now().timeIntervalSince1970, firings: planned?.firings.count ?? 0)
            if let plan = planned {
                await reminders.syncCalendar(calendar.name, firings: plan.firings.map { ($0.reminder, $0.at) })
                // A reload replaced this loop meanwhile: its status is the new loop's to write.
                guard !Task.isCancelled else { return }
                statuses[calendar.name] = Status(
                    name: calendar.name, source: Self.describe(calendar.source), lastRead: fetched.readAt, problem: fetched.problem,
                    eventsThisWeek: plan.eventsThisWeek, skipped: Array(plan.skipped.prefix(5)),
                    next: plan.firings.filter { $0.at > now() }.prefix(5).map { Status.Upcoming(at: $0.at, says: $0.reminder.body, starts: $0.starts) })
            } else {
                statuses[calendar.name, default: Status(name: calendar.name, source: Self.describe(calendar.source), lastRead: nil,
                                                        problem: nil, eventsThisWeek: 0, next: [])].problem = lastProblem ?? fetched.problem
            }
        } while (try? await Task.sleep(for: calendar.poll)) != nil
    }

    /// The firings of `objects` in the planning window, as reminders; nil when they could not be
    /// read (logged once per change of the reason).
    private func plan(_ calendar: CalendarSettings, _ objects: [String], logger: Logger, lastProblem: inout String?)
        -> (firings: [(reminder: Reminder, at: Date, starts: Date)], eventsThisWeek: Int, skipped: [String])? {
        let configuration = live.value.configuration
        let zone = configuration.quietHours.timeZone
        let instant = now()
        let earliest = instant.addingTimeInterval(-configuration.reminders.grace.inSeconds)
        do {
            let read = try ICalendarReader.occurrences(in: objects, from: earliest.addingTimeInterval(-2 * 86_400),
                                                       to: instant.addingTimeInterval(Self.horizon + Self.longestAlarm), zone: zone)
            if lastProblem != nil { logger.notice("calendar \(calendar.name): read again") }
            lastProblem = nil
            let firings = CalendarPlanner.firings(of: read.occurrences, settings: calendar, zone: zone)
                .filter { $0.at >= earliest && $0.at <= instant.addingTimeInterval(Self.horizon) }
                .map { firing in
                    (reminder: reminder(for: firing, calendar: calendar, speech: configuration.speech, zone: zone, createdAt: instant),
                     at: firing.at, starts: firing.occurrence.start)
                }
            let week = read.occurrences.filter { $0.start >= instant && $0.start < instant.addingTimeInterval(7 * 86_400) }.count
            if !read.skipped.isEmpty, read.skipped != lastSkipped[calendar.name] {
                logger.warning("calendar \(calendar.name): not said: \(read.skipped.prefix(5).joined(separator: "; "))")
            }
            lastSkipped[calendar.name] = read.skipped
            return (firings, week, read.skipped)
        } catch {
            let problem = "not iCalendar: \(error)"
            if problem != lastProblem { logger.error("calendar \(calendar.name): \(problem); nothing of it is said until it reads") }
            lastProblem = problem
            return nil
        }
    }

    /// A firing as a one-shot reminder at its moment (in UTC: a firing is an instant, and a wall
    /// clock would make the fall-back hour ambiguous), named by its calendar and key.
    private func reminder(for firing: CalendarFiring, calendar: CalendarSettings, speech: SpeechSettings, zone: TimeZone,
                          createdAt: Date) -> Reminder {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let parts = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: firing.at)
        return Reminder(id: "calendar:\(calendar.name):\(Self.digest(firing.key))", bodyKind: .text,
                        body: CalendarWording.text(for: firing, calendar: calendar, speech: speech, zone: zone),
                        priority: calendar.priority, language: calendar.language, timeZone: "UTC",
                        schedule: .once(day: DateComponents(year: parts.year, month: parts.month, day: parts.day),
                                        time: LocalTime(hour: parts.hour ?? 0, minute: parts.minute ?? 0, second: parts.second ?? 0)),
                        repeats: calendar.repeats, escalate: calendar.escalate, origin: .calendar, createdAt: createdAt,
                        rooms: calendar.rooms)
    }

    /// A short stable name for a firing's key (FNV-1a, 64 bits): UIDs may be long and hold any character.
    static func digest(_ key: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    /// The source without credentials a URL may carry.
    static func describe(_ source: CalendarSettings.Source) -> String {
        switch source {
        case .caldav(let url):
            guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "caldav" }
            parts.user = nil
            parts.password = nil
            return parts.string ?? "caldav"
        // A secret address is the secret (Google's private-... path): only its host is shown.
        case .icsURL(let url): return "\(url.scheme ?? "https")://\(url.host ?? "")/…"
        case .icsFile(let path): return path
        }
    }
}

import AsyncHTTPClient
import Foundation
import HeraldCalendar
import HeraldCore

extension Doctor {
    /// Each calendar of `calendars:` read once, as the daemon reads it: unreachable, a wrong
    /// password, not iCalendar, or nothing in the next 7 days (the wrong calendar, or an empty one).
    func calendarChecks() async -> [DoctorFinding] {
        let calendars = context.configuration.calendars
        guard !calendars.isEmpty else { return [] }
        let client = context.httpClient ?? HTTPClient(eventLoopGroupProvider: .singleton, configuration: .herald(connectTimeout: .seconds(10)))
        var findings: [DoctorFinding] = []
        for calendar in calendars {
            // A copy of its own: the daemon's last good copy is not replaced by a doctor's read.
            let scratch = NSTemporaryDirectory() + "herald-doctor-\(UUID().uuidString).json"
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let fetched = await CalendarFetcher(settings: calendar, cacheFile: scratch, httpClient: client, logger: context.logger).fetch()
            findings.append(Self.calendarFinding(calendar, fetched: fetched, zone: context.configuration.quietHours.timeZone))
        }
        if context.httpClient == nil { try? await client.shutdown() }
        return findings
    }

    static func calendarFinding(_ calendar: CalendarSettings, fetched: CalendarFetch, zone: TimeZone, now: Date = Date()) -> DoctorFinding {
        let check = "calendar \(calendar.name)"
        if let problem = fetched.problem {
            let action = problem.contains("401") || problem.lowercased().contains("password")
                ? "check calendars.\(calendar.name).username and password (or password_file); a Nextcloud app password works where the login password does not"
                : "check the address in calendars.\(calendar.name) and that this machine reaches it (curl it); until then its last good copy is said"
            return DoctorFinding(check, .warning, "could not be read: \(problem)", action: action)
        }
        do {
            let read = try ICalendarReader.occurrences(in: fetched.objects, from: now, to: now.addingTimeInterval(7 * 86_400), zone: zone)
            let said = CalendarPlanner.firings(of: read.occurrences, settings: calendar, zone: zone).count
            guard !read.occurrences.isEmpty else {
                return DoctorFinding(check, .warning, "read, but it holds no event in the next 7 days",
                                     action: "check that calendars.\(calendar.name) names the calendar the appointments are in")
            }
            return DoctorFinding(check, .ok, "\(read.occurrences.count) event(s) in the next 7 days, \(said) to say"
                                 + (read.skipped.isEmpty ? "" : "; skipped: \(read.skipped.prefix(3).joined(separator: "; "))"))
        } catch {
            return DoctorFinding(check, .warning, "read, but it is not iCalendar: \(error)",
                                 action: "check that calendars.\(calendar.name) is the calendar's CalDAV or .ics address, not its web page")
        }
    }
}

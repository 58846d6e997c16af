import Foundation
import HeraldCore
import HeraldTesting
import Testing

/// A year of reminders in seconds of CPU (issue 27): the pure scheduler driven by a simulated
/// clock through 365 days in three time zones (Berlin: DST both ways; Kolkata: none; Sydney: the
/// southern hemisphere's), with the hub switched off for random stretches. Every occurrence must
/// be accounted for exactly once (said, said late within the grace, or logged missed), never
/// said twice, never missed while the hub was on, and each local day must have its occurrence.
@Suite struct SimulatedYearTests {
    static let grace: TimeInterval = 15 * 60
    let scheduler = ReminderScheduler(grace: .seconds(15 * 60))
    /// 2026-01-01T00:00:00Z to 2027-01-01: both of each zone's DST changes fall inside.
    static let start = Date(timeIntervalSince1970: 1_767_225_600)
    static let end = start.addingTimeInterval(365 * 86_400)

    /// The hub's power: off stretches from a minute to two days, on about one day in ten.
    struct Power {
        var outages: [(from: Date, until: Date)] = []

        init(seed: UInt64) {
            var random = SeededRandom(seed: seed)
            var day = SimulatedYearTests.start
            while day < SimulatedYearTests.end {
                if Double.random(in: 0..<1, using: &random) < 0.1 {
                    let from = day.addingTimeInterval(Double.random(in: 0..<86_400, using: &random))
                    let length = Double.random(in: 60...(48 * 3600), using: &random)
                    if let last = outages.last, from <= last.until { day += 86_400; continue }
                    outages.append((from, from.addingTimeInterval(length)))
                }
                day += 86_400
            }
        }

        /// When the hub is next on at or after `instant` (the end of the stretch it is off in).
        func onAt(_ instant: Date) -> Date {
            outages.first { $0.from <= instant && instant < $0.until }?.until ?? instant
        }

        func isOn(throughout from: Date, _ until: Date) -> Bool {
            !outages.contains { $0.from < until && from < $0.until }
        }
    }

    struct Firing {
        var due: Date
        var saidAt: Date?
        var late = false
        var missed = false
    }

    /// Runs one reminder through the year; returns every occurrence it accounted for, by due
    /// time, and the sayings of repeats.
    func simulate(_ reminder: Reminder, power: Power, seed: UInt64) -> (firings: [Date: [Firing]], repeats: Int, escalations: Int) {
        var random = SeededRandom(seed: seed ^ 0xA5A5)
        var state = ReminderScheduler.initialState(for: reminder, now: Self.start)
        var firings: [Date: [Firing]] = [:]
        var repeats = 0, escalations = 0
        while let wake = ReminderScheduler.wake(state), wake < Self.end {
            // On, the daemon's timer fires within half a second; off, it steps when the hub is
            // back (a couple of seconds to start).
            let on = power.onAt(wake)
            let now = on == wake ? wake.addingTimeInterval(Double.random(in: 0...0.5, using: &random))
                                 : on.addingTimeInterval(Double.random(in: 1...3, using: &random))
            guard now < Self.end else { break }
            for action in scheduler.step(reminder, state: &state, now: now) {
                switch action {
                case .say(let due, let late, let time) where time == 1:
                    firings[due, default: []].append(Firing(due: due, saidAt: now, late: late))
                    // Half the time someone answers before the first repeat.
                    if Bool.random(using: &random) { _ = ReminderScheduler.acknowledge(&state) }
                case .say:
                    repeats += 1
                case .missed(let first, let count):
                    var due: Date? = first
                    for _ in 0..<count {
                        guard let missed = due else { break }
                        firings[missed, default: []].append(Firing(due: missed, missed: true))
                        due = reminder.nextDue(after: missed)
                    }
                case .escalate:
                    escalations += 1
                }
            }
        }
        return (firings, repeats, escalations)
    }

    static func reminder(_ id: String, zone: String, _ schedule: ReminderSchedule, repeats: ReminderRepeat? = nil) -> Reminder {
        Reminder(id: id, bodyKind: .text, body: id, timeZone: zone, schedule: schedule, repeats: repeats,
                 origin: .api, createdAt: start)
    }

    static func daily(_ hour: Int, _ minute: Int) -> ReminderSchedule {
        .daily(times: [LocalTime(hour: hour, minute: minute)], days: [])
    }

    @Test(arguments: ["Europe/Berlin", "Asia/Kolkata", "Australia/Sydney"])
    func aYearOfRemindersIsAccountedForOccurrenceByOccurrence(zone: String) throws {
        let timeZone = try #require(TimeZone(identifier: zone))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        // Deterministic per zone (String.hashValue is seeded anew in every process).
        let seed = zone.utf8.reduce(UInt64(17)) { $0 &* 31 &+ UInt64($1) }
        let power = Power(seed: 20_261_125)
        #expect(power.outages.count > 20, "the hub is switched off often enough: \(power.outages.count)")
        let reminders = [
            Self.reminder("pills", zone: zone, Self.daily(8, 0), repeats: ReminderRepeat(every: .seconds(600), times: 2)),
            Self.reminder("evening", zone: zone, Self.daily(21, 30)),
            // In Berlin 02:30 does not exist on the spring day and happens twice on the autumn one.
            Self.reminder("night", zone: zone, Self.daily(2, 30)),
            Self.reminder("water", zone: zone, .every(interval: .seconds(4 * 3600), from: LocalTime(hour: 6, minute: 0),
                                                      until: LocalTime(hour: 22, minute: 0), days: [])),
        ]
        let perDay = ["pills": 1, "evening": 1, "night": 1, "water": 5]
        for reminder in reminders {
            let (firings, repeats, _) = simulate(reminder, power: power, seed: seed)
            // None said twice, none both said and missed.
            let twice = firings.filter { $0.value.count != 1 }
            #expect(twice.isEmpty, "\(zone) \(reminder.id): accounted more than once: \(twice.keys.sorted().prefix(3))")
            var byDay: [DateComponents: Int] = [:]
            for (due, list) in firings {
                guard let firing = list.first else { continue }
                byDay[calendar.dateComponents([.year, .month, .day], from: due), default: 0] += 1
                if let saidAt = firing.saidAt {
                    let lateness = saidAt.timeIntervalSince(due)
                    #expect(lateness >= 0 && lateness <= Self.grace, "\(zone) \(reminder.id) \(due): said \(lateness) s after")
                    #expect(firing.late == (lateness > ReminderScheduler.lateTolerance), "\(zone) \(reminder.id) \(due): late flag")
                } else {
                    // Missed only when the hub was off at some moment between the due time and the grace's end.
                    #expect(!power.isOn(throughout: due, due.addingTimeInterval(Self.grace)),
                            "\(zone) \(reminder.id) \(due): missed while the hub was on")
                }
                // A daily time is due at that local time, except where DST skips it (then an hour on).
                if case .daily(let times, _) = reminder.schedule, let time = times.first {
                    let local = calendar.dateComponents([.hour, .minute], from: due)
                    let exact = local.hour == time.hour && local.minute == time.minute
                    // The spring-forward gap: 02:30 is the transition itself, 03:00.
                    let gap = timeZone.isDaylightSavingTime(for: due) != timeZone.isDaylightSavingTime(for: due.addingTimeInterval(-3 * 3600))
                        && local.hour == time.hour + 1 && local.minute == 0
                    #expect(exact || gap, "\(zone) \(reminder.id) \(due): at \(local)")
                }
            }
            // Every full local day of the year has its occurrences: none lost.
            var day = calendar.startOfDay(for: Self.start.addingTimeInterval(86_400))
            var days = 0
            while day.addingTimeInterval(2 * 86_400) < Self.end {
                let parts = calendar.dateComponents([.year, .month, .day], from: day)
                #expect(byDay[parts] == perDay[reminder.id], "\(zone) \(reminder.id) \(parts): \(byDay[parts] ?? 0) occurrences")
                days += 1
                day = calendar.date(byAdding: .day, value: 1, to: day)!
            }
            #expect(days >= 360)
            let said = firings.values.filter { $0.first?.saidAt != nil }.count
            let missed = firings.values.filter { $0.first?.missed == true }.count
            #expect(said > 0 && missed > 0, "\(zone) \(reminder.id): said \(said), missed \(missed)")
            if reminder.repeats != nil { #expect(repeats > 0, "repeats said when nobody answered") }
            print("figures: \(zone) \(reminder.id): \(said) said, \(missed) missed, \(repeats) repeats over \(days) days")
        }
    }

    /// Quiet hours over the year in each zone: a moment in the window always has an end after it,
    /// outside the window, within a day, DST changes included.
    @Test(arguments: ["Europe/Berlin", "Asia/Kolkata", "Australia/Sydney"])
    func quietHoursEndEveryNightOfTheYear(zone: String) throws {
        let quiet = QuietHours(windows: [QuietWindow("22:00-07:00")!], timeZone: try #require(TimeZone(identifier: zone)))
        var random = SeededRandom(seed: 7)
        var instant = Self.start
        var checked = 0
        while instant < Self.end {
            if quiet.isQuiet(at: instant) {
                let end = try #require(quiet.end(after: instant), "\(zone) \(instant)")
                #expect(end > instant && end.timeIntervalSince(instant) <= 10 * 3600, "\(zone) \(instant) ends at \(end)")
                #expect(!quiet.isQuiet(at: end), "\(zone) \(instant): still quiet at its end \(end)")
                checked += 1
            }
            instant += Double.random(in: 600...7200, using: &random)
        }
        #expect(checked > 500)
    }
}

import Foundation
import HeraldCore
import Yams

extension ConfigValues {
    /// The fields a calendar may have (docs/reminders.md, "Calendars").
    static let calendarFields: Set<String> = [
        "caldav", "ics", "username", "password", "password_file", "poll", "lead", "at_start", "all_day_at", "say_location",
        "skip_cancelled", "skip_free", "priority", "lang", "rooms", "repeat", "escalate",
    ]

    /// `calendars:`, each checked as a whole: one with a bad field is left out, and every bad
    /// field is named (file, line, key).
    mutating func readCalendars(rooms: RoomSettings) -> [CalendarSettings] {
        (layout.records["calendars"] ?? []).compactMap { configCalendar($0.name, $0.fields, rooms: rooms) }
    }

    private mutating func configCalendar(_ name: String, _ mapping: Node.Mapping, rooms: RoomSettings) -> CalendarSettings? {
        let prefix = "calendars.\(name)"
        var fields: [String: Node] = [:]
        for (key, value) in mapping {
            guard let field = key.scalar?.string else { continue }
            if Self.calendarFields.contains(field) { fields[field] = value } else {
                report("\(prefix).\(field)", "unknown field; a calendar has \(Self.calendarFields.sorted().joined(separator: ", "))")
            }
        }
        let before = problems.count
        func text(_ field: String) -> String? {
            guard let value = fields[field]?.scalar?.string.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
            return value
        }
        func flag(_ field: String) -> Bool? {
            guard let value = text(field) else { return nil }
            switch value.lowercased() {
            case "true", "yes", "on": return true
            case "false", "no", "off": return false
            default:
                report("\(prefix).\(field)", "'\(value)' is not true or false")
                return nil
            }
        }
        func duration(_ field: String, _ range: ClosedRange<Duration>) -> Duration? {
            guard let value = text(field) else { return nil }
            let bounds = "\(DurationText.format(range.lowerBound)) to \(DurationText.format(range.upperBound))"
            guard let parsed = DurationText.parse(value), range.contains(parsed) else {
                report("\(prefix).\(field)", "'\(value)' is not a duration from \(bounds); write it like 60s, 30m or 2h")
                return nil
            }
            return parsed
        }
        guard MQTTSettings.isTopicName(name) else {
            report(prefix, "'\(name)' is not a calendar name; use letters, digits and - _ . (it names its firings in the log)")
            return nil
        }
        let source: CalendarSettings.Source
        switch (text("caldav"), text("ics")) {
        case (let collection?, nil):
            guard let url = URL(string: collection), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                report("\(prefix).caldav", "'\(collection)' is not an http(s) URL of a calendar collection, like https://cloud.example.org/remote.php/dav/calendars/anna/family/")
                return nil
            }
            source = .caldav(url)
        case (nil, let address?):
            if let url = URL(string: address), ["http", "https"].contains(url.scheme?.lowercased() ?? "") {
                guard url.host != nil else {
                    report("\(prefix).ics", "'\(address)' has no host; write the .ics address as the calendar program gives it")
                    return nil
                }
                source = .icsURL(url)
            } else if address.contains("://") {
                report("\(prefix).ics", "'\(address)' is neither an http(s) URL nor a file; webcal:// addresses are read as https://")
                return nil
            } else {
                source = .icsFile(relativeToFile(address))
            }
        case (nil, nil):
            report(prefix, "needs caldav: (a CalDAV collection URL) or ics: (an .ics URL or file)")
            return nil
        case (_?, _?):
            report("\(prefix).ics", "give caldav: or ics:, not both")
            return nil
        }
        var calendar = CalendarSettings(name: name, source: source)
        calendar.username = text("username")
        switch (text("password"), text("password_file")) {
        case (let password?, nil): calendar.password = password
        case (nil, let path?):
            let file = relativeToFile(path)
            if let data = FileManager.default.contents(atPath: file), let secret = String(data: data, encoding: .utf8) {
                calendar.password = secret.trimmingCharacters(in: .whitespacesAndNewlines)
            } else {
                report("\(prefix).password_file", "cannot read \(file); give a file this user may read, holding the password")
            }
        case (_?, _?): report("\(prefix).password_file", "give password or password_file, not both")
        case (nil, nil): break
        }
        if calendar.password != nil && calendar.username == nil { report("\(prefix).password", "a password needs username") }
        // Under 15 s a calendar server would see the hub as a flood; alarms a minute ahead still work at 60 s.
        calendar.poll = duration("poll", .seconds(15) ... .seconds(86_400)) ?? calendar.poll
        calendar.lead = duration("lead", .zero ... .seconds(7 * 86_400)) ?? calendar.lead
        calendar.atStart = flag("at_start") ?? calendar.atStart
        calendar.sayLocation = flag("say_location") ?? calendar.sayLocation
        calendar.skipCancelled = flag("skip_cancelled") ?? calendar.skipCancelled
        calendar.skipFree = flag("skip_free") ?? calendar.skipFree
        if let time = text("all_day_at") {
            if let parsed = LocalTime(time) { calendar.allDayAt = parsed } else {
                report("\(prefix).all_day_at", "'\(time)' is not a time of day; write it like \"08:00\"")
            }
        }
        if let priority = text("priority") {
            if let parsed = Priority(rawValue: priority.lowercased()) { calendar.priority = parsed } else {
                report("\(prefix).priority", "'\(priority)' is not a priority; use critical, high, normal or low")
            }
        }
        calendar.language = text("lang")
        if let node = fields["rooms"] {
            let names: [String] = if case .sequence(let items) = node { items.compactMap(\.scalar?.string) } else { node.scalar.map { [$0.string] } ?? [] }
            do {
                _ = try rooms.expand(names)
                calendar.rooms = names
            } catch {
                report("\(prefix).rooms", "\(error)")
            }
        }
        if let repeats = fields["repeat"] {
            var every: Duration?, times: Int?
            for (key, value) in repeats.mapping ?? [:] {
                switch key.scalar?.string {
                case "every": every = value.scalar.flatMap { DurationText.parse($0.string) }
                case "times": times = value.scalar.flatMap { Int($0.string) }
                default: report("\(prefix).repeat", "has every: and times: only")
                }
            }
            if let every, let times, every >= .seconds(30), (1...100).contains(times) {
                calendar.repeats = ReminderRepeat(every: every, times: times)
            } else {
                report("\(prefix).repeat", "write it like {every: 5m, times: 3} (every at least 30s, times 1 to 100)")
            }
        }
        if let url = text("escalate") {
            do {
                try ReminderDraft.checkWebhook(url, field: "\(prefix).escalate")
                calendar.escalate = url
            } catch {
                report("\(prefix).escalate", error.message)
            }
        }
        return problems.count == before ? calendar : nil
    }
}

import Foundation
import HeraldCore
import Yams

extension ConfigValues {
    /// `reminders.grace`, `.escalate`, `.escalate_attempts` and the admin's `reminders.list`.
    mutating func readReminders(into settings: inout ReminderSettings, soundsDirectory: String, rooms: RoomSettings) {
        settings.grace = duration("reminders.grace", range: .seconds(0) ... .seconds(7 * 86_400)) ?? settings.grace
        settings.escalateAttempts = integer("reminders.escalate_attempts", range: 1...20) ?? settings.escalateAttempts
        if let url = string("reminders.escalate")?.trimmingCharacters(in: .whitespaces) {
            do {
                try ReminderDraft.checkWebhook(url, field: "reminders.escalate")
                settings.escalate = url.isEmpty ? nil : url
            } catch {
                report("reminders.escalate", error.message)
            }
        }
        for entry in layout.records["reminders.list"] ?? [] {
            if let reminder = configReminder(entry.name, entry.fields, soundsDirectory: soundsDirectory, rooms: rooms) {
                settings.list.append(reminder)
            }
        }
    }

    /// One entry of `reminders.list`: the same fields, names and checks as the API's body.
    private mutating func configReminder(_ name: String, _ mapping: Node.Mapping, soundsDirectory: String,
                                         rooms: RoomSettings) -> Reminder? {
        let prefix = "reminders.list.\(name)"
        func scalar(_ node: Node?) -> String? { node?.scalar?.string }
        func strings(_ node: Node?) -> [String]? {
            guard let node else { return nil }
            if case .sequence(let items) = node { return items.compactMap(\.scalar?.string) }
            return node.scalar.map { [$0.string] }
        }
        let known: Set<String> = ["text", "clip", "priority", "lang", "voice", "time_zone", "schedule", "repeat", "escalate", "rooms"]
        // Every unknown field is named, not only the first: one run of `config check` shows them all.
        let unknown = mapping.map { $0.key.scalar?.string ?? "" }.filter { !known.contains($0) }
        for key in unknown {
            report("\(prefix).\(key)", "unknown field; a reminder has \(known.sorted().joined(separator: ", "))")
        }
        guard unknown.isEmpty else { return nil }
        // Looked up by name in a dictionary: Yams' own lookup compares nodes, resolving their tags
        // with regular expressions each time, and a file may hold thousands of reminders.
        let fields = Self.byName(mapping)
        let body: (kind: BodyKind, value: String)
        if let clip = scalar(fields["clip"]) {
            guard fields["text"] == nil else {
                report("\(prefix).clip", "give text or clip, not both")
                return nil
            }
            guard let path = HeraldConfiguration.clipPath(named: clip, in: soundsDirectory) else {
                report("\(prefix).clip", "no clip named '\(clip)' in \(soundsDirectory)/samples or chimes; use a name like ding")
                return nil
            }
            body = (.file, path)
        } else {
            guard let text = scalar(fields["text"])?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
                report(fields["text"] == nil ? prefix : "\(prefix).text",
                       "needs text (what to say, like \"Time to take your medication\") or clip (a sound, like ding)")
                return nil
            }
            body = (.text, text)
        }
        var draft = ReminderDraft()
        draft.priority = scalar(fields["priority"])
        draft.timeZone = scalar(fields["time_zone"])
        if let schedule = fields["schedule"]?.mapping.map(Self.byName) {
            var parts = ReminderDraft.Schedule()
            parts.at = scalar(schedule["at"])
            parts.daily = strings(schedule["daily"])
            parts.days = strings(schedule["days"])
            parts.every = scalar(schedule["every"])
            parts.from = scalar(schedule["from"])
            parts.until = scalar(schedule["until"])
            draft.schedule = parts
        }
        if let repeats = fields["repeat"] {
            draft.hasRepeat = true
            let repeats = repeats.mapping.map(Self.byName) ?? [:]
            draft.repeatEvery = scalar(repeats["every"])
            if let times = scalar(repeats["times"]) {
                guard let count = Int(times) else {
                    report("\(prefix).repeat.times", "'\(times)' is not a whole number from 1 to 100")
                    return nil
                }
                draft.repeatTimes = count
            }
        }
        draft.escalate = scalar(fields["escalate"])
        let reminderRooms = strings(fields["rooms"])
        if let reminderRooms {
            do { _ = try rooms.expand(reminderRooms) } catch {
                report("\(prefix).rooms", "\(error)")
                return nil
            }
        }
        do {
            // A past one-shot is kept (it has fired): the file is not wrong for having been right.
            let checked = try draft.check(now: .distantPast)
            return Reminder(id: "config:\(name)", bodyKind: body.kind, body: body.value, priority: checked.priority,
                            language: scalar(fields["lang"]), voice: scalar(fields["voice"]), timeZone: checked.timeZone,
                            schedule: checked.schedule, repeats: checked.repeats, escalate: checked.escalate,
                            origin: .config, createdAt: Date(), rooms: reminderRooms)
        } catch {
            let key = "\(prefix).\(error.field)"
            report(layout.lines[key] == nil ? prefix : key, error.message)
            return nil
        }
    }

    /// The entries of `mapping` by their names (the first of a name; the parser refuses repeats).
    private static func byName(_ mapping: Node.Mapping) -> [String: Node] {
        var result: [String: Node] = [:]
        for (key, value) in mapping {
            if let name = key.scalar?.string, result[name] == nil { result[name] = value }
        }
        return result
    }

    /// `quiet_hours.windows`, `.target_volume`, `.time_zone` and `priorities.<p>.quiet_hours`.
    mutating func quietHours(defaults: QuietHours, safeguard: SafeguardSettings) -> QuietHours {
        var quiet = defaults
        for text in layout.listItems["quiet_hours.windows"] ?? [] {
            if let window = QuietWindow(text) { quiet.windows.append(window) } else {
                report("quiet_hours.windows", "'\(text)' is not a window; write it like 22:00-07:00 (HH:MM or HH:MM:SS, start and end differ)")
            }
        }
        if let text = string("quiet_hours.target_volume")?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            let digits = text.hasSuffix("%") ? String(text.dropLast()) : text
            if let value = Double(digits.trimmingCharacters(in: .whitespaces)), (1...150).contains(value) {
                quiet.targetVolume = Volume(percent: value)
                if quiet.targetVolume > safeguard.targetVolume {
                    report("quiet_hours.target_volume", "\(text) is above safeguard.target_volume \(safeguard.targetVolume); quiet hours should be quieter")
                }
            } else {
                report("quiet_hours.target_volume", "'\(text)' is not a percentage from 1% to 150%; write it like 35%")
            }
        }
        if let zone = string("quiet_hours.time_zone")?.trimmingCharacters(in: .whitespaces), !zone.isEmpty {
            if let parsed = TimeZone(identifier: zone) { quiet.timeZone = parsed } else {
                report("quiet_hours.time_zone", "'\(zone)' is not an IANA time zone; write it like Europe/Berlin")
            }
        }
        for priority in Priority.allCases {
            let key = "priorities.\(priority.rawValue).quiet_hours"
            guard let text = string(key)?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { continue }
            guard let policy = QuietHoursPolicy(rawValue: text.lowercased()) else {
                report(key, "'\(text)' is not a quiet-hours policy; use play, play_quieter, defer or suppress")
                continue
            }
            if priority == .critical && policy != .play {
                report(key, "critical announcements always play in quiet hours (an emergency must be heard); remove this line")
                continue
            }
            quiet.policies[priority] = policy
        }
        return quiet
    }
}

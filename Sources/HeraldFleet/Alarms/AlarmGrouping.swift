import HeraldCore

/// The alarms of one hub are grouped by kind: `AlarmRules` wants one alarm per room for an absent
/// or muted sink (and per calendar not read), and a heartbeat listing many rooms once gave as
/// many webhook POSTs. Grouped, a hub has at most one open alarm of each kind (subject ""), whose
/// detail names the rooms or calendars.
enum AlarmGrouping {
    /// The longest detail kept for a grouped alarm.
    static let maxDetail = 500

    /// `wanted` with every alarm that has a subject merged into one per hub and kind.
    static func grouped(_ wanted: [WantedAlarm]) -> [WantedAlarm] {
        var result: [WantedAlarm] = []
        var byKey: [AlarmKey: [WantedAlarm]] = [:]
        var order: [AlarmKey] = []
        for alarm in wanted {
            guard !alarm.key.subject.isEmpty else {
                result.append(alarm)
                continue
            }
            let key = AlarmKey(hub: alarm.key.hub, kind: alarm.key.kind)
            if byKey[key] == nil { order.append(key) }
            byKey[key, default: []].append(alarm)
        }
        for key in order {
            let members = byKey[key] ?? []
            let subjects = switch key.kind { case .calendarUnread: "calendars"; case .help: "calls for help"; default: "rooms" }
            let detail = members.count == 1 ? members[0].detail
                : "\(members.count) \(subjects): " + members.map(\.detail).joined(separator: "; ")
            result.append(WantedAlarm(key: key, detail: detail.clipped(maxDetail)))
        }
        return result
    }
}

import Foundation

/// What a priority does during quiet hours (`priorities.<p>.quiet_hours`).
public enum QuietHoursPolicy: String, Sendable, CaseIterable, Codable {
    /// As at any other time (critical always).
    case play
    /// With the sink raised only to `quiet_hours.target_volume`.
    case playQuieter = "play_quieter"
    /// Held, and said when the window ends, in order.
    case `defer`
    /// Not said: logged `suppressed_quiet`.
    case suppress
}

/// A daily window, `22:00-07:00` (past midnight when the end is before the start).
public struct QuietWindow: Sendable, Equatable, CustomStringConvertible {
    public var from: LocalTime
    public var until: LocalTime

    public init(from: LocalTime, until: LocalTime) {
        self.from = from
        self.until = until
    }

    /// Parses `22:00-07:00` or `22:00:00-07:00:00`; nil otherwise (or an empty window).
    public init?(_ text: String) {
        let ends = text.split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let from = LocalTime(String(ends[0])), let until = LocalTime(String(ends[1])),
              from != until else { return nil }
        self.init(from: from, until: until)
    }

    public var description: String { "\(from)-\(until)" }

    /// True when the wall-clock time `seconds` (since midnight) falls in the window.
    func contains(_ seconds: Int) -> Bool {
        from < until ? (from.secondsOfDay..<until.secondsOfDay).contains(seconds)
            : seconds >= from.secondsOfDay || seconds < until.secondsOfDay
    }
}

/// Quiet hours (DESIGN.md "Priorities"): when they are, and what each priority does in them.
public struct QuietHours: Sendable, Equatable {
    public var windows: [QuietWindow]
    /// The target volume of `play_quieter`.
    public var targetVolume: Volume
    public var policies: [Priority: QuietHoursPolicy]
    /// The zone the windows are read in: the system's unless `quiet_hours.time_zone` says.
    public var timeZone: TimeZone
    /// A button's `quiet` (not the config's): every room is quiet until then, and everything but
    /// critical waits for its end (`defer`), whatever the priorities' policies say.
    public var heldUntil: Date?

    public init(windows: [QuietWindow] = [], targetVolume: Volume = Volume(percent: 35),
                policies: [Priority: QuietHoursPolicy] = QuietHours.defaultPolicies, timeZone: TimeZone = .current) {
        self.windows = windows
        self.targetVolume = targetVolume
        self.policies = policies
        self.timeZone = timeZone
    }

    /// Critical plays, high plays quieter, normal waits for the morning, low is not said.
    public static let defaultPolicies: [Priority: QuietHoursPolicy] = [
        .critical: .play, .high: .playQuieter, .normal: .defer, .low: .suppress,
    ]

    private func secondsOfDay(_ date: Date) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
        return (parts.hour ?? 0) * 3600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0)
    }

    /// True when `date` falls in a quiet window, or a button holds it quiet.
    public func isQuiet(at date: Date) -> Bool { isHeld(at: date) || inWindow(date) }

    /// True while a button's `quiet` holds.
    public func isHeld(at date: Date) -> Bool { heldUntil.map { date < $0 } ?? false }

    private func inWindow(_ date: Date) -> Bool {
        let seconds = secondsOfDay(date)
        return windows.contains { $0.contains(seconds) }
    }

    /// What `priority` does at `date`: nil outside quiet hours; critical always plays.
    public func policy(for priority: Priority, at date: Date) -> QuietHoursPolicy? {
        guard isQuiet(at: date) else { return nil }
        if priority == .critical { return .play }
        return isHeld(at: date) ? .defer : (policies[priority] ?? Self.defaultPolicies[priority] ?? .play)
    }

    /// When the quiet hours that hold at `date` end (windows that touch count as one, and a
    /// button's hold with a window it runs into); nil when `date` is not in quiet hours.
    public func end(after date: Date) -> Date? {
        guard isQuiet(at: date) else { return nil }
        if let heldUntil, date < heldUntil {
            return inWindow(heldUntil) ? windowEnd(after: heldUntil) : heldUntil
        }
        return windowEnd(after: date)
    }

    private func windowEnd(after date: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var moment = date
        // Each pass moves to the nearest window end; a touching window keeps it quiet a while longer.
        for _ in 0..<(windows.count + 1) {
            let ends = windows.filter { $0.contains(secondsOfDay(moment)) }.compactMap { window -> Date? in
                let today = calendar.dateComponents([.year, .month, .day], from: moment)
                let candidate = LocalTime.moment(day: today, seconds: window.until.secondsOfDay, in: timeZone)
                if candidate > moment { return candidate }
                let tomorrow = calendar.dateComponents([.year, .month, .day], from: calendar.date(byAdding: .day, value: 1, to: moment)!)
                return LocalTime.moment(day: tomorrow, seconds: window.until.secondsOfDay, in: timeZone)
            }
            guard let end = ends.max() else { return moment }
            moment = end
            if !inWindow(moment) { return moment }
        }
        return moment
    }
}

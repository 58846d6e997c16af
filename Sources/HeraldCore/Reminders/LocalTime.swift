import Foundation

/// A wall-clock time of day, `HH:MM` or `HH:MM:SS`, in whatever time zone it is read with.
public struct LocalTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int
    public var second: Int

    public init(hour: Int, minute: Int, second: Int = 0) {
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Parses `08:00` or `08:00:30`; nil for `25:00`, `8am`, `08:60`.
    public init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
              let hour = Int(parts[0]), let minute = Int(parts[1]),
              (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        let second = parts.count == 3 ? Int(parts[2]) : 0
        guard let second, (0...59).contains(second) else { return nil }
        self.init(hour: hour, minute: minute, second: second)
    }

    /// Seconds since midnight.
    public var secondsOfDay: Int { hour * 3600 + minute * 60 + second }

    public var description: String {
        second == 0 ? String(format: "%02d:%02d", hour, minute) : String(format: "%02d:%02d:%02d", hour, minute, second)
    }

    public static func < (a: LocalTime, b: LocalTime) -> Bool { a.secondsOfDay < b.secondsOfDay }

    /// The moment `time` on the local `day` (year, month, day) in `zone`, DST-correct.
    ///
    /// A time that occurs twice (the fall-back hour) is its first occurrence, so a reminder fires
    /// once; a time that does not exist (the spring-forward gap) is the first valid moment after
    /// it, the transition itself (02:30 becomes 03:00).
    public static func moment(day: DateComponents, seconds: Int, in zone: TimeZone) -> Date {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let midnight = utc.date(from: DateComponents(year: day.year, month: day.month, day: day.day))!
        let naive = midnight.timeIntervalSince1970 + Double(seconds)
        // The offsets in force a day either side: a transition never comes twice in two days.
        let offsets = Set([zone.secondsFromGMT(for: Date(timeIntervalSince1970: naive - 86_400)),
                           zone.secondsFromGMT(for: Date(timeIntervalSince1970: naive + 86_400))])
        let valid = offsets.map { naive - Double($0) }
            .filter { zone.secondsFromGMT(for: Date(timeIntervalSince1970: $0)) == Int(naive - $0) }
        if let first = valid.min() { return Date(timeIntervalSince1970: first) }
        let earliest = Date(timeIntervalSince1970: naive - Double(offsets.max()!))
        return zone.nextDaylightSavingTimeTransition(after: earliest.addingTimeInterval(-1))
            ?? Date(timeIntervalSince1970: naive - Double(offsets.min()!))
    }
}

/// A day of the week, written `mon` … `sun` (or in full).
public enum Weekday: String, Sendable, CaseIterable, Codable, Comparable {
    case mon, tue, wed, thu, fri, sat, sun

    /// Foundation's weekday number (Sunday is 1).
    public var calendarWeekday: Int { self == .sun ? 1 : Self.allCases.firstIndex(of: self)! + 2 }

    public init?(name: String) {
        let lowered = name.trimmingCharacters(in: .whitespaces).lowercased()
        guard lowered.count >= 3, let day = Self.allCases.first(where: {
            lowered == $0.rawValue || Self.fullNames[$0] == lowered
        }) else { return nil }
        self = day
    }

    private static let fullNames: [Weekday: String] = [.mon: "monday", .tue: "tuesday", .wed: "wednesday",
                                                        .thu: "thursday", .fri: "friday", .sat: "saturday", .sun: "sunday"]

    /// `mon-fri`, `sat,sun`, `mon` (items may be separate list elements too); nil names the bad item.
    public static func parse(_ items: [String]) -> Result<Set<Weekday>, BadItem> {
        var days: Set<Weekday> = []
        for item in items.flatMap({ $0.split(separator: ",").map(String.init) }) {
            let ends = item.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard (1...2).contains(ends.count), let first = Weekday(name: ends[0]) else { return .failure(BadItem(item: item)) }
            guard ends.count == 2 else { days.insert(first); continue }
            guard let last = Weekday(name: ends[1]) else { return .failure(BadItem(item: item)) }
            let all = allCases, start = all.firstIndex(of: first)!, end = all.firstIndex(of: last)!
            // `fri-mon` wraps over the weekend.
            let indices = start <= end ? Array(start...end) : Array(start..<all.count) + Array(0...end)
            for index in indices { days.insert(all[index]) }
        }
        return .success(days)
    }

    public struct BadItem: Error { public var item: String }

    public static func < (a: Weekday, b: Weekday) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
}

import Foundation

/// Waiting announcements by priority (DESIGN.md "Priorities"): pure, so the rules are tested
/// without a sound server or a clock.
public struct AnnouncementQueue<Item: Sendable>: Sendable {
    public struct Entry: Sendable {
        public var id: String
        public var priority: Priority
        public var queuedAt: Date
        public var item: Item
        /// Who sent it (source and client): within a lane, senders take turns, so one client's
        /// flood does not hold back another's announcement of the same priority.
        public var sender: String
        /// A payment (or a summary of some): served before the other entries of its lane, so a
        /// till's payment is not queued behind texts (a shop's reason to have Herald).
        public var isPayment: Bool
        /// Put back after an interruption: played next in its lane, before any turn-taking.
        var resumes = false

        public init(id: String, priority: Priority, queuedAt: Date, item: Item, sender: String = "", isPayment: Bool = false) {
            self.id = id
            self.priority = priority
            self.queuedAt = queuedAt
            self.item = item
            self.sender = sender
            self.isPayment = isPayment
        }
    }

    public enum Admission: Sendable, Equatable {
        case accepted
        /// The queue holds `limit` entries; critical and high are never refused.
        case refusedFull(limit: Int)
    }

    /// Serving order: critical first, low last.
    static var order: [Priority] { Priority.servingOrder }
    private var lanes: [Priority: [Entry]] = [:]
    /// When each sender was last served (a turn number), for taking turns within a lane;
    /// forgotten whenever the queue empties.
    private var lastServed: [String: Int] = [:]
    private var turn = 0
    /// Normal and low are refused past this many waiting entries in all.
    public var limit: Int
    /// An announcement older than its priority's max age when its turn comes is not played
    /// (it waited too long for a sound server, a sink, or the queue).
    public var policies: PriorityPolicies

    public init(limit: Int = 100, policies: PriorityPolicies = .defaults) {
        self.limit = limit
        self.policies = policies
    }

    public var count: Int { lanes.values.reduce(0) { $0 + $1.count } }
    public var isEmpty: Bool { count == 0 }

    /// Waiting entries per priority.
    public var depth: [Priority: Int] {
        Dictionary(uniqueKeysWithValues: Priority.allCases.map { ($0, lanes[$0]?.count ?? 0) })
    }

    /// True when an entry with `id` waits in the queue.
    public func contains(id: String) -> Bool { lanes.values.contains { $0.contains { $0.id == id } } }

    /// Adds `entry` at the end of its lane, unless the queue is full (never for critical or high).
    public mutating func enqueue(_ entry: Entry) -> Admission {
        if count >= limit && (entry.priority == .normal || entry.priority == .low) {
            return .refusedFull(limit: limit)
        }
        lanes[entry.priority, default: []].append(entry)
        return .accepted
    }

    /// Takes the entry `id` out of the queue; false when it does not wait there.
    public mutating func remove(id: String) -> Bool {
        for (priority, lane) in lanes {
            guard let index = lane.firstIndex(where: { $0.id == id }) else { continue }
            lanes[priority]?.remove(at: index)
            return true
        }
        return false
    }

    /// Puts an interrupted entry back at the front of its lane, to be played next in its priority.
    public mutating func replayFirst(_ entry: Entry) {
        var entry = entry
        entry.resumes = true
        lanes[entry.priority, default: []].insert(entry, at: 0)
    }

    /// Puts `entry` back in its lane where its `queuedAt` places it: a summary in the place of the
    /// oldest payment it says, a payment taken for one back where it was.
    public mutating func insertByTime(_ entry: Entry) {
        var lane = lanes[entry.priority] ?? []
        lane.insert(entry, at: lane.firstIndex { $0.queuedAt > entry.queuedAt } ?? lane.endIndex)
        lanes[entry.priority] = lane
    }

    /// The next entry to play, and the entries removed for being older than their max age.
    public mutating func next(now: Date) -> (next: Entry?, droppedStale: [Entry]) {
        let dropped = removeStale(now: now)
        for priority in Self.order {
            if var lane = lanes[priority], !lane.isEmpty {
                var entry = lane.remove(at: Self.pick(in: lane, lastServed: lastServed))
                entry.resumes = false
                lanes[priority] = lane
                turn += 1
                lastServed[entry.sender] = turn
                if isEmpty { lastServed = [:] }
                return (entry, dropped)
            }
        }
        lastServed = [:]
        return (nil, dropped)
    }

    /// The index in `lane` (oldest first, not empty) to serve next: an interrupted entry put
    /// back; else payments before other entries; among those, the oldest entry of the sender
    /// served longest ago (never served counts as longest), so senders take turns.
    static func pick(in lane: [Entry], lastServed: [String: Int]) -> Int {
        if let resumed = lane.firstIndex(where: \.resumes) { return resumed }
        let payments = lane.contains(where: \.isPayment)
        var best: (index: Int, served: Int)?
        var seen = Set<String>()
        for (index, entry) in lane.enumerated() where (!payments || entry.isPayment) && seen.insert(entry.sender).inserted {
            let served = lastServed[entry.sender] ?? -1
            if let chosen = best, chosen.served <= served { continue }
            best = (index, served)
        }
        return best?.index ?? 0
    }

    /// Removes and returns the entries older than their priority's max age.
    public mutating func removeStale(now: Date) -> [Entry] {
        var dropped: [Entry] = []
        for (priority, lane) in lanes {
            let maxAge = policies[priority].maxAge.inSeconds
            let (fresh, stale) = lane.reduce(into: ([Entry](), [Entry]())) { result, entry in
                if now.timeIntervalSince(entry.queuedAt) > maxAge { result.1.append(entry) } else { result.0.append(entry) }
            }
            lanes[priority] = fresh
            dropped += stale
        }
        return dropped.sorted { $0.queuedAt < $1.queuedAt }
    }

    /// When the oldest waiting entry passes its max age: the moment to look again while waiting.
    public func nextExpiry() -> Date? {
        lanes.flatMap { priority, lane in
            lane.map { $0.queuedAt.addingTimeInterval(policies[priority].maxAge.inSeconds) }
        }.min()
    }

    /// True when `incoming` must interrupt what plays at `current`: only critical interrupts,
    /// and only something less than critical.
    public static func interrupts(_ incoming: Priority, current: Priority) -> Bool {
        incoming == .critical && current != .critical
    }

    /// Removes and returns the waiting entries that `isPayment` selects, oldest first, when there
    /// are more than `threshold` of them in the high, normal and low lanes: they are to be said as
    /// one summary. Most tills send payments without a priority (normal), and a payment heard
    /// minutes after the customer left is worth less than a summary. Critical ones are each said.
    public mutating func takePaymentsToCoalesce(over threshold: Int, isPayment: (Item) -> Bool) -> [Entry] {
        let lanesSummarised: [Priority] = [.high, .normal, .low]
        let payments = lanesSummarised.flatMap { (lanes[$0] ?? []).filter { isPayment($0.item) } }
        guard payments.count > threshold else { return [] }
        for priority in lanesSummarised { lanes[priority] = lanes[priority]?.filter { !isPayment($0.item) } }
        return payments.sorted { $0.queuedAt < $1.queuedAt }
    }
}

extension Priority {
    /// Critical first, low last: the order lanes are served in.
    public static let servingOrder: [Priority] = [.critical, .high, .normal, .low]

    /// The most urgent of `priorities`; nil when there is none.
    public static func mostUrgent(of priorities: some Sequence<Priority>) -> Priority? {
        let present = Set(priorities)
        return servingOrder.first(where: present.contains)
    }
}

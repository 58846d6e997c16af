import Foundation

/// What the soak did and saw, for the checker: every request it sent and whether the hub took it,
/// every setting the user made, every fault, every unanswered health check.
final class History: @unchecked Sendable {
    enum Channel: String { case http, mqtt }

    struct Request {
        var requestID: String
        var channel: Channel
        var priority: String
        var body: String
        var sentAt: Date
        var copies = 1
        var acceptedAt: Date?
        var refused: String?
    }

    struct ReminderMade {
        var id: String
        var text: String
        var due: Date
        var repeats: Bool
        var ackedAt: Date?
    }

    private let lock = NSLock()
    private(set) var requests: [String: Request] = [:]
    private(set) var reminders: [ReminderMade] = []
    private(set) var faults: [(at: Date, kind: String)] = []
    private(set) var userChanges = 0
    private(set) var healthFailures: [Date] = []
    private(set) var healthChecks = 0
    private(set) var resources: [ResourceSample] = []
    /// Each sink's (and the radio's, under "radio") acceptable settings now: the user's last one,
    /// or, after the server started again, also what a fresh server gives.
    private(set) var expected: [String: [Setting]] = [:]
    private(set) var leftChanged: [String] = []

    func with<T>(_ body: (History) -> T) -> T { lock.withLock { body(self) } }

    func sent(_ request: Request) { lock.withLock { requests[request.requestID] = request } }
    func sentAgain(_ requestID: String) { lock.withLock { requests[requestID]?.copies += 1 } }
    func accepted(_ requestID: String) { lock.withLock { if requests[requestID]?.acceptedAt == nil { requests[requestID]?.acceptedAt = Date() } } }
    func refused(_ requestID: String, _ why: String) { lock.withLock { requests[requestID]?.refused = why } }
    func isAccepted(_ requestID: String) -> Bool { lock.withLock { requests[requestID]?.acceptedAt != nil } }

    func made(_ reminder: ReminderMade) { lock.withLock { reminders.append(reminder) } }
    func acked(_ id: String) { lock.withLock { if let index = reminders.firstIndex(where: { $0.id == id }) { reminders[index].ackedAt = Date() } } }

    func fault(_ kind: String) { lock.withLock { faults.append((Date(), kind)) } }
    /// How long after the last sound heard on any monitor each aimed kill was sent, in ms.
    private(set) var aimedKillOffsets: [Double] = []
    func aimedKill(lastHeard: Date?) {
        let now = Date()
        lock.withLock {
            faults.append((now, Faults.Kind.aimedKill.rawValue))
            if let lastHeard { aimedKillOffsets.append(now.timeIntervalSince(lastHeard) * 1000) }
        }
    }
    func health(ok: Bool, excused: Bool) {
        lock.withLock {
            healthChecks += 1
            if !ok && !excused { healthFailures.append(Date()) }
        }
    }
    func sample(_ sample: ResourceSample) { lock.withLock { resources.append(sample) } }

    /// The user set `target` (a sink, or "radio") to `setting`.
    func userSet(_ target: String, _ setting: Setting) {
        lock.withLock {
            userChanges += 1
            expected[target] = [setting]
        }
    }

    /// Every change the user made, for a look at a failed run (`user.log` in the soak's folder).
    private(set) var userLog: [String] = []
    /// When the user changed each target, for the checker.
    private(set) var userChangeTimes: [(at: Date, target: String)] = []

    /// The user changed `target`'s volume or mute (nil: left as it was, whatever it is now).
    func userChanged(_ target: String, percent: Int?, muted: Bool?) {
        lock.withLock {
            userChanges += 1
            userChangeTimes.append((Date(), target))
            userLog.append("\(Date()) \(target) \(percent.map { "\($0)%" } ?? "") \(muted.map { $0 ? "muted" : "unmuted" } ?? "")")
            let changed = (expected[target] ?? [.fresh]).map { last in
                Setting(percent: percent ?? last.percent, muted: muted ?? last.muted)
            }
            // Two acceptable values made one by the change are one (the message lists each once).
            expected[target] = changed.reduce(into: []) { unique, setting in if !unique.contains(setting) { unique.append(setting) } }
        }
    }

    /// The server (or one sink) started again: a fresh value is as good as the user's last.
    func serverRestarted(_ targets: [String]) {
        lock.withLock {
            for target in targets where expected[target]?.contains(.fresh) != true { expected[target, default: []].append(.fresh) }
            handsOffUntil = Date().addingTimeInterval(6)
        }
    }

    /// The user leaves the sinks alone until then: a change made after the server came back and
    /// before Herald reconnected is undone by Herald's journal, which cannot tell it from the
    /// server's own values (a known limit, docs/safeguard.md).
    private(set) var handsOffUntil = Date.distantPast
    var handsOff: Bool { lock.withLock { Date() < handsOffUntil } }

    /// Checks what the server shows, once nothing plays; returns the targets that differ.
    func mismatches(sinks: [String: Setting], radio: Setting?) -> [String] {
        lock.withLock {
            var wrong: [String] = []
            for (target, acceptable) in expected {
                let actual = target == "radio" ? radio : sinks[target]
                guard let actual else { continue }  // gone now (unplugged): nothing to compare
                if !acceptable.contains(where: { Self.close($0, actual) }) {
                    wrong.append("\(target) is \(actual), the user's is \(acceptable.map(\.description).joined(separator: " or "))")
                }
            }
            return wrong.sorted()
        }
    }

    func record(leftChanged found: [String]) { lock.withLock { leftChanged += found } }

    /// Volumes round to a percent both ways.
    static func close(_ a: Setting, _ b: Setting) -> Bool { a.muted == b.muted && abs(a.percent - b.percent) <= 1 }
}

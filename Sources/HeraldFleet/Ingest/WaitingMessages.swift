import Foundation

/// A hub message with its number in the console's spool (`IngestSpool`; 0 for none) and when
/// the console received it.
struct Spooled: Sendable {
    var message: HubMessage
    var sequence: UInt64
    var receivedAt: Date
}

/// Messages read and not written yet, in order. `next` waits for one.
actor WaitingMessages {
    private var messages: [Spooled] = []
    private var taken = 0
    private var finished = false
    private var waiter: CheckedContinuation<Void, Never>?
    let maxEvents: Int
    private(set) var dropped = 0
    /// The spool number of the last message added or refused: with none waiting, everything up
    /// to it is written (or was never to be).
    private(set) var lastSeen: UInt64 = 0

    init(maxEvents: Int) { self.maxEvents = maxEvents }

    var isFinished: Bool { finished }
    var count: Int { messages.count }

    func add(_ message: HubMessage, sequence: UInt64 = 0, receivedAt: Date = Date()) {
        messages.append(Spooled(message: message, sequence: sequence, receivedAt: receivedAt))
        lastSeen = max(lastSeen, sequence)
        if messages.count > maxEvents + 10_000 { compact() }
        waiter?.resume()
        waiter = nil
    }

    /// A spooled message refused (or empty): nothing to write, but the spool is past it.
    func skip(_ sequence: UInt64) { lastSeen = max(lastSeen, sequence) }

    /// Whether nothing waits and every message spooled up to `spooled` has come through here.
    func isIdle(through spooled: UInt64) -> Bool { messages.isEmpty && lastSeen >= spooled }

    func finish() {
        finished = true
        waiter?.resume()
        waiter = nil
    }

    /// Up to `limit` of the oldest messages, the same ones again until `written` says they are;
    /// nil once finished with nothing left (or finished while a write keeps failing).
    func next(_ limit: Int) async -> [Spooled]? {
        while messages.isEmpty {
            if finished { return nil }
            await withCheckedContinuation { waiter = $0 }
        }
        taken = min(limit, messages.count)
        return Array(messages.prefix(taken))
    }

    func written(_ count: Int) {
        messages.removeFirst(min(count, messages.count))
        taken = 0
    }

    /// Keeps each hub's newest status and heartbeat and every event; past `maxEvents` events the
    /// oldest go. Never touches the batch being written (the first `taken`).
    private func compact() {
        let head = messages.prefix(taken), tail = messages.dropFirst(taken)
        var seen = Set<String>()
        var kept: [Spooled] = []
        for spooled in tail.reversed() {
            switch spooled.message {
            case .status(let hub, _, _, _): if seen.insert("s/" + hub).inserted { kept.append(spooled) }
            case .health(let health, _, _, _): if seen.insert("h/" + health.hub).inserted { kept.append(spooled) }
            case .event: kept.append(spooled)
            }
        }
        kept.reverse()
        var over = kept.count { if case .event = $0.message { true } else { false } } - maxEvents
        if over > 0 {
            dropped += over
            kept.removeAll { spooled in
                guard over > 0, case .event = spooled.message else { return false }
                over -= 1
                return true
            }
        }
        messages = Array(head) + kept
    }
}

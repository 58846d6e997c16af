import Foundation
import HeraldConfig
import HeraldCore
import HeraldMQTTClient
import Synchronization

/// Plays many hubs through one broker connection, publishing exactly the documented messages:
/// each hub's retained `online` status and heartbeat every `interval`, and announcement events
/// at `eventsPerSecond` across the fleet (`herald fleet simulate`, the tests and the benchmark).
public final class HubSimulator: Sendable {
    public struct Plan: Sendable {
        public var hubs: Int
        /// Hub `i` is `<prefix><i>`, zero-padded to 4 digits.
        public var prefix = "sim-"
        /// Hub `i` is in group `group-<i % groups>`; 0: in none.
        public var groups = 4
        public var interval: Duration = .seconds(60)
        /// Announcement events per second over all hubs (each a `played`, one in 50 `failed`).
        public var eventsPerSecond = 0.0

        public init(hubs: Int) { self.hubs = hubs }

        public func name(_ index: Int) -> String { prefix + String(format: "%04d", index) }
    }

    let plan: Plan
    let client: MosquittoClient
    private let published = Mutex(0)
    private let beats = Mutex(0)

    /// Events published so far.
    public var eventsPublished: Int { published.withLock { $0 } }
    /// Heartbeats published so far.
    public var heartbeatsPublished: Int { beats.withLock { $0 } }

    public init(plan: Plan, broker: MQTTSettings) throws {
        self.plan = plan
        client = try MosquittoClient(settings: broker, subscriptions: [], will: ("herald-sim/\(broker.clientID)/status", Array(#"{"state":"offline"}"#.utf8)))
    }

    /// Connects, waiting at most `timeout`.
    public func connect(timeout: Duration = .seconds(10)) async throws {
        client.start()
        let deadline = ContinuousClock.now + timeout
        while !client.isConnected {
            guard ContinuousClock.now < deadline else { throw SimulatorError(message: "the broker did not accept the simulator within \(timeout)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Clears its hubs' retained status and heartbeat (an empty retained publish each), so no
    /// console started later lists hubs that never existed, waits (up to 30 s) until the broker
    /// has them all, then disconnects. Blocks.
    public func stop() {
        if client.isConnected {
            for index in 0..<plan.hubs {
                _ = try? client.publish("herald/\(plan.name(index))/status", [], retain: true)
                _ = try? client.publish("herald/\(plan.name(index))/health", [], retain: true)
            }
            // A disconnect drops what is still queued: 10,000 clears take a moment to go out.
            _ = client.waitUntilAcknowledged(timeout: .seconds(30))
        }
        client.stop(goodbye: nil)
    }

    /// Waits (blocking, at most `timeout`) until the broker has acknowledged every message so far.
    public func waitUntilAcknowledged(timeout: Duration) -> Bool { client.waitUntilAcknowledged(timeout: timeout) }

    /// Every hub's status and heartbeat once (as hubs that have just connected).
    public func beat(now: Date = Date()) throws {
        for index in 0..<plan.hubs {
            try client.publish("herald/\(plan.name(index))/status", Array(#"{"state":"online","version":"sim"}"#.utf8), retain: true)
        }
        try heartbeats(0..<plan.hubs, now: now)
    }

    /// The heartbeats of the hubs `indices`, once.
    public func heartbeats(_ indices: Range<Int>, now: Date = Date()) throws {
        for index in indices {
            try client.publish("herald/\(plan.name(index))/health", health(index, now: now).json, retain: true)
            beats.withLock { $0 += 1 }
        }
    }

    /// The heartbeat of hub `index`: one room, unmuted, nothing failing.
    public func health(_ index: Int, now: Date) -> HubHealth {
        HubHealth(hub: plan.name(index), version: "sim", at: now, uptimeSeconds: 3600, intervalSeconds: Int(plan.interval.inSeconds),
                  groups: plan.groups > 0 ? ["group-\(index % plan.groups)"] : [], mutePolicy: "override",
                  rooms: [HubHealth.Room(room: "default", sink: "sim_sink", present: true, muted: false, volumePercent: 70)],
                  outcomes24h: ["played": 10], diskFreeBytes: 10_000_000_000)
    }

    /// Publishes `count` announcement events spread over the hubs (as fast as the client takes
    /// them), each with its own announcement id; returns how many went out.
    /// - Parameter waiting: wait (blocking, up to 2 s an event) through a reconnect; `run` does
    ///   not: it must not hold a thread of the concurrency pool, and tries again itself.
    @discardableResult
    public func publishEvents(_ count: Int, startingAt first: Int = 0, at now: Date = Date(), waiting: Bool = true) throws -> Int {
        let at = now.formatted(.iso8601)
        for n in first..<(first + count) {
            let hub = plan.name(n % max(plan.hubs, 1))
            let outcome = n % 50 == 49 ? "failed" : "played"
            let payload = #"{"at":"\#(at)","hub":"\#(hub)","id":"sim-\#(n)","onset_latency_ms":20,"outcome":"\#(outcome)","request_id":"sim/\#(n)","topic":"herald/\#(hub)/announce"}"#
            if waiting {
                try publishRetrying("herald/\(hub)/events", Array(payload.utf8))
            } else {
                try client.publish("herald/\(hub)/events", Array(payload.utf8))
            }
            published.withLock { $0 += 1 }
        }
        return count
    }

    /// Publishes `count` events dated over the 24 hours before `now`, more by day (08:00 to
    /// 20:00 UTC) than by night, as a fleet that has run for a day would have sent them: a console
    /// started on it then has a day to chart. Their ids do not meet those of `publishEvents`.
    public func publishHistory(_ count: Int, now: Date = Date()) throws {
        let weights = (0..<24).map { hour in (8..<20).contains(hour) ? 1.0 : 0.25 }
        let total = weights.reduce(0, +)
        let startOfHour = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 3600).rounded(.down) * 3600)
        var next = Self.historyIDs
        var weightSoFar = 0.0, sentSoFar = 0
        for back in 1...24 {
            let hourStart = startOfHour.addingTimeInterval(Double(-back * 3600))
            let hour = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: hourStart).hour ?? 0
            // Whole events per hour that add up to `count` exactly.
            weightSoFar += weights[hour]
            let inHour = Int((Double(count) * weightSoFar / total).rounded()) - sentSoFar
            sentSoFar += inHour
            // One time per hour (its middle): the chart counts by hour.
            try publishEvents(inHour, startingAt: next, at: hourStart.addingTimeInterval(1800))
            next += inHour
        }
    }

    /// Where the ids of `publishHistory` start, far from the live ones.
    static let historyIDs = 1_000_000_000

    /// Tries again for up to 2 s while the connection is down (a reconnect in progress).
    private func publishRetrying(_ topic: String, _ payload: [UInt8]) throws {
        var tries = 0
        while true {
            do {
                try client.publish(topic, payload)
                return
            } catch {
                tries += 1
                guard tries < 200 else { throw error }
                usleep(10_000)
            }
        }
    }

    /// Beats and publishes events at the planned rate until cancelled: every hub's status and
    /// heartbeat at once first, then each hub's heartbeat every `interval`, the hubs spread
    /// evenly over it (100,000 hubs beating every 60 s: about 1,700 heartbeats a second, as a
    /// real fleet's arrive, not 100,000 at once each minute). A hub's status is said once, as a
    /// hub says it when it connects (it is retained).
    ///
    /// A broker that goes away does not end it: publishing pauses while the connection is down
    /// and, once it is back, every hub beats again at once (a broker restarted without its
    /// retained messages would otherwise list no hub until the next interval), and the events
    /// owed meanwhile go out. It used to stop at the first failed publish, reconnect, and publish
    /// nothing more, so consoles rightly called every simulated hub offline.
    /// - Parameter beatingAllFirst: false for hubs that have beaten already (`beat()`): the
    ///   spread beats begin at once.
    public func run(beatingAllFirst: Bool = true) async throws {
        var schedule = BeatSchedule(hubs: plan.hubs, interval: plan.interval, start: .now)
        var mustBeatAll = beatingAllFirst
        var sent = 0
        var wasConnected = true
        let started = ContinuousClock.now
        while !Task.isCancelled {
            let connected = client.isConnected
            if connected && !wasConnected { mustBeatAll = true }
            wasConnected = connected
            if connected {
                do {
                    if mustBeatAll {
                        try beat()
                        schedule = BeatSchedule(hubs: plan.hubs, interval: plan.interval, start: .now)
                        mustBeatAll = false
                    }
                    for due in schedule.due(at: .now) { try heartbeats(due) }
                    if plan.eventsPerSecond > 0 {
                        let due = Int((ContinuousClock.now - started).inSeconds * plan.eventsPerSecond)
                        let before = eventsPublished
                        defer { sent += eventsPublished - before }
                        if due > sent { try publishEvents(due - sent, startingAt: sent, waiting: false) }
                    }
                } catch {
                    // The connection dropped under a publish: what did not go out goes once it is back.
                    wasConnected = false
                }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }
}

public struct SimulatorError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

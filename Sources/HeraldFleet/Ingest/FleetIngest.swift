import Foundation
import HeraldConfig
import HeraldCore
import HeraldMQTTClient
import Logging
import ServiceLifecycle

/// The console's broker side, a `Service`: subscribes to every hub's status, heartbeat and
/// events through the shared subscription (each message reaches one console of the group),
/// reads each message (`HubMessage`) and writes them in batches to PostgreSQL.
///
/// A database that is down stops nothing: messages wait in memory, in order, and are written
/// when it answers again. While they wait, a hub's newer status or heartbeat replaces its older
/// one; events are all kept, up to `maxWaitingEvents` (then the oldest go, counted and logged).
public struct FleetIngest: Service {
    let settings: FleetSettings
    let store: FleetStore
    let metrics: FleetMetrics
    let link: FleetLink
    let logger: Logger

    static let batchSize = 500
    static let maxWaitingEvents = 200_000

    public init(settings: FleetSettings, store: FleetStore, metrics: FleetMetrics, link: FleetLink, logger: Logger) {
        self.settings = settings
        self.store = store
        self.metrics = metrics
        self.link = link
        self.logger = logger
    }

    public func run() async throws {
        let waiting = WaitingMessages(maxEvents: Self.maxWaitingEvents)
        var takeover = TakeoverDetector()
        link.start()
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await write(from: waiting) }
                for await event in link.events {
                    guard case .message(let message) = event else {
                        linkMoved(event, takeover: &takeover)
                        continue
                    }
                    let kind = message.topic.split(separator: "/").last.map(String.init) ?? ""
                    metrics.received(kind)
                    do throws(HubMessageError) {
                        guard let read = try HubMessage.read(topic: message.topic, payload: message.payload, receivedAt: Date(),
                                                                  retained: message.retained) else { continue }
                        await waiting.add(read)
                    } catch {
                        metrics.refused(tooLarge: error.tooLarge)
                        logger.warning("fleet: refused a hub's message: \(error)")
                    }
                }
                await waiting.finish()
            }
        } onGracefulShutdown: {
            link.stop()
        }
        // Put off the broker by a console with the same name: the page and API still serve
        // what the database holds until the console is stopped (a service that returns would
        // end them all).
        if link.displaced { try? await gracefulShutdown() }
    }


    /// The link's state for `/v1/health`, and the log.
    private func linkMoved(_ event: MosquittoClient.Event, takeover: inout TakeoverDetector) {
        switch event {
        case .connected:
            takeover.connected(at: .now)
            link.moved(connected: true)
            logger.notice("fleet: connected to \(settings.broker.brokerURL), reading every hub's status, health and events (shared)")
        case .down(let reason, _) where takeover.down(reason: reason, at: .now):
            // Another console with this client id: reconnecting would take it back, and each
            // would put the other off every second. This one gives way, once, and says why.
            let said = "another client connected as \(settings.broker.clientID) (is fleet.name '\(settings.name)' set on two consoles?): "
                + "the broker put this console off (\(reason)); it stopped reading the broker and leaves it to the other; "
                + "give each console its own fleet.name and restart it"
            link.displace(said)
            logger.error("fleet: \(said)")
        case .down(let reason, let retry):
            link.moved(connected: false, error: reason)
            logger.warning("fleet: \(settings.broker.brokerURL): \(reason); trying again in \(retry)")
        case .refused(let what):
            link.moved(connected: link.isConnected, error: what)
            logger.error("fleet: \(what); the broker must allow this console to subscribe to herald/+/status, health and events (shared)")
        case .acknowledged, .message:
            break
        }
    }

    /// Writes what waits, a batch at a time, until `waiting` finishes and is empty. A failed write
    /// keeps the batch and tries again, waiting longer each time (up to 10 s).
    private func write(from waiting: WaitingMessages) async {
        var retries = Backoff(initial: .milliseconds(250), maximum: .seconds(10))
        var downSince: Date?
        var reportedDropped = 0
        while let batch = await waiting.next(Self.batchSize) {
            do {
                let added = try await store.record(batch)
                metrics.ingested(added)
                await waiting.written(batch.count)
                if let since = downSince {
                    logger.notice("fleet: the database answers again; wrote what waited since \(since.formatted(.iso8601))")
                    downSince = nil
                }
                retries.reset()
            } catch {
                if downSince == nil {
                    downSince = Date()
                    logger.error("fleet: could not write \(batch.count) hub messages to \(settings.database.description): \(String(reflecting: error)); keeping them and trying again")
                }
                let dropped = await waiting.dropped
                if dropped > reportedDropped {
                    logger.error("fleet: \(dropped - reportedDropped) waiting events dropped, the oldest first: more than \(Self.maxWaitingEvents) waited for the database")
                    reportedDropped = dropped
                }
                if await waiting.isFinished {
                    let lost = await waiting.count
                    logger.error("fleet: stopping with \(lost) hub messages not written (the database did not answer); the hubs' statuses and heartbeats come again, these events do not")
                    return
                }
                try? await Task.sleep(for: retries.next())
            }
        }
    }
}

/// Messages read and not written yet, in order. `next` waits for one.
actor WaitingMessages {
    private var messages: [HubMessage] = []
    private var taken = 0
    private var finished = false
    private var waiter: CheckedContinuation<Void, Never>?
    let maxEvents: Int
    private(set) var dropped = 0

    init(maxEvents: Int) { self.maxEvents = maxEvents }

    var isFinished: Bool { finished }
    var count: Int { messages.count }

    func add(_ message: HubMessage) {
        messages.append(message)
        if messages.count > maxEvents + 10_000 { compact() }
        waiter?.resume()
        waiter = nil
    }

    func finish() {
        finished = true
        waiter?.resume()
        waiter = nil
    }

    /// Up to `limit` of the oldest messages, the same ones again until `written` says they are;
    /// nil once finished with nothing left (or finished while a write keeps failing).
    func next(_ limit: Int) async -> [HubMessage]? {
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
        var kept: [HubMessage] = []
        for message in tail.reversed() {
            switch message {
            case .status(let hub, _, _, _): if seen.insert("s/" + hub).inserted { kept.append(message) }
            case .health(let health, _, _, _): if seen.insert("h/" + health.hub).inserted { kept.append(message) }
            case .event: kept.append(message)
            }
        }
        kept.reverse()
        var over = kept.count { if case .event = $0 { true } else { false } } - maxEvents
        if over > 0 {
            dropped += over
            kept.removeAll { message in
                guard over > 0, case .event = message else { return false }
                over -= 1
                return true
            }
        }
        messages = Array(head) + kept
    }
}

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
/// Every message is in the console's spool (`IngestSpool`) before it is read: what a killed
/// console had received and not written is replayed at its next start, before the broker is
/// read again, and written once.
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

    /// What the link's spool held when it was opened (`FleetLink.takeReplay`) is written before
    /// anything new.
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
        do {  // A scope of its own: the records go once queued.
            let replay = link.takeReplay()
            if !replay.isEmpty {
                logger.notice("fleet: replaying \(replay.count) messages of the spool \(link.spool.path) (those written before are skipped)")
            }
            for record in replay {
                await take(topic: record.topic, payload: record.payload, retained: record.retained, receivedAt: record.receivedAt,
                           sequence: record.sequence, into: waiting, counted: false)
            }
        }
        // Every number the spool has given so far is queued above or was never a message (its
        // numbering starts from the clock): a console that receives nothing still marks.
        await waiting.skip(link.spool.last)
        link.start()
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await write(from: waiting) }
                group.addTask { await keepMarking(waiting) }
                for await event in link.events {
                    guard case .message(let message) = event else {
                        linkMoved(event, takeover: &takeover)
                        continue
                    }
                    if let failure = link.spool.takeFailure() { logger.error("fleet: \(failure); a kill now would lose what is not written") }
                    await take(topic: message.topic, payload: message.payload, retained: message.retained, receivedAt: message.receivedAt,
                               sequence: message.sequence, into: waiting)
                }
                // Not cancelAll: the writer drains what waits (a cancelled write never commits).
                await waiting.finish()
            }
        } onGracefulShutdown: {
            link.stop()
        }
        await leave(waiting)
        // Put off the broker by a console with the same name: the page and API still serve
        // what the database holds until the console is stopped (a service that returns would
        // end them all).
        if link.displaced { try? await gracefulShutdown() }
    }

    /// Reads a message and queues it for writing (or notes its spool number as done).
    private func take(topic: String, payload: [UInt8], retained: Bool, receivedAt: Date, sequence: UInt64,
                      into waiting: WaitingMessages, counted: Bool = true) async {
        let kind = topic.split(separator: "/").last.map(String.init) ?? ""
        if counted { metrics.received(kind) }
        do throws(HubMessageError) {
            guard let read = try HubMessage.read(topic: topic, payload: payload, receivedAt: receivedAt, retained: retained) else {
                await waiting.skip(sequence)
                return
            }
            await waiting.add(read, sequence: sequence, receivedAt: receivedAt)
        } catch {
            await waiting.skip(sequence)
            guard counted else { return }
            metrics.refused(tooLarge: error.tooLarge)
            logger.warning("fleet: refused a hub's message: \(error)")
        }
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
}

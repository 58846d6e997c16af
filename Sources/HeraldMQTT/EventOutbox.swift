import HeraldApp
import HeraldStore
import Logging

/// Publishes the hub's events so that none is lost (DESIGN.md "Reaching hubs"): each event is
/// written to the database before libmosquitto has it, and removed only when the broker has
/// acknowledged it (PUBACK). A broker away for days, or a kill -9 with events in libmosquitto's
/// memory, costs nothing: the next connect (of this run or the next) sends what is still owed.
///
/// At least once, not exactly once: a crash between the broker's PUBACK and the row's removal
/// sends that event again at the next start. Events carry the announcement's id and request id,
/// so a backend recognises a repeat.
actor EventOutbox {
    let client: MosquittoClient
    let monitor: LinkMonitor
    let live: LiveContext
    let logger: Logger
    /// Rows handed to libmosquitto, by its message id, until their PUBACK. After a reconnect
    /// libmosquitto sends these again by itself, so `flush` must not.
    private var inFlight: [Int32: Int64] = [:]
    private var handedOver: Set<Int64> = []
    /// Acknowledged rows whose removal failed (the disk full): removed at the next flush, and
    /// never sent again meanwhile.
    private var acknowledgedNotRemoved: Set<Int64> = []
    /// Events the database could not take: kept here, bounded, until the next connect. Only these
    /// are lost by a crash.
    private var unwritten: [(topic: String, payload: [UInt8])] = []
    private var databaseFailing = false

    init(client: MosquittoClient, monitor: LinkMonitor, live: LiveContext, logger: Logger) {
        self.client = client
        self.monitor = monitor
        self.live = live
        self.logger = logger
    }

    private var database: AppDatabase { live.value.database }

    /// Keeps `payload` until the broker has it, and publishes it now if the broker is there.
    func send(_ topic: String, _ payload: [UInt8]) async {
        let id: Int64
        do {
            id = try await database.holdEvent(topic: topic, payload: payload)
            databaseWorks()
        } catch {
            databaseFailed(error)
            if (try? client.publish(topic, payload)) != nil {
                monitor.update { $0.eventsPublished += 1 }
            } else {
                unwritten.append((topic, payload))
                if unwritten.count > AppDatabase.eventOutboxLimit { unwritten.removeFirst(unwritten.count - AppDatabase.eventOutboxLimit) }
            }
            return
        }
        // A flush that ran during the write above may have sent it already.
        guard !handedOver.contains(id) else { return }
        publish(HeldEvent(id: id, topic: topic, payload: payload))
    }

    /// Publishes a message that is not owed if it cannot go now (the retained presence).
    func sendNow(_ topic: String, _ payload: [UInt8], retain: Bool) {
        _ = try? client.publish(topic, payload, retain: retain)
    }

    /// At each connect: everything still owed that libmosquitto does not hold, oldest first.
    func flush() async {
        for id in acknowledgedNotRemoved {
            if (try? await database.releaseEvent(id: id)) != nil { acknowledgedNotRemoved.remove(id) }
        }
        let waiting = unwritten
        unwritten = []
        for (topic, payload) in waiting {
            if (try? client.publish(topic, payload)) != nil {
                monitor.update { $0.eventsPublished += 1 }
            } else {
                unwritten.append((topic, payload))
            }
        }
        do {
            let owed = try await database.heldEvents()
            databaseWorks()
            for event in owed where !handedOver.contains(event.id) && !acknowledgedNotRemoved.contains(event.id) {
                guard publish(event) else { break }
            }
        } catch {
            databaseFailed(error)
        }
    }

    /// The broker acknowledged message `mid` (or refused it for good: sending it again would not help).
    func acknowledged(mid: Int32) async {
        guard let id = inFlight.removeValue(forKey: mid) else { return }
        monitor.update { $0.eventsPublished += 1 }
        do {
            try await database.releaseEvent(id: id)
            handedOver.remove(id)
        } catch {
            acknowledgedNotRemoved.insert(id)
            handedOver.remove(id)
            databaseFailed(error)
        }
    }

    /// Hands `event` to libmosquitto; false when the broker is not connected (it stays owed).
    @discardableResult
    private func publish(_ event: HeldEvent) -> Bool {
        guard let mid = try? client.publish(event.topic, event.payload) else { return false }
        inFlight[mid] = event.id
        handedOver.insert(event.id)
        return true
    }

    private func databaseFailed(_ error: any Error) {
        guard !databaseFailing else { return }
        databaseFailing = true
        logger.error("MQTT: events cannot be kept in the database (\(error)); they wait in memory until the broker takes them, and a crash meanwhile loses them")
    }

    private func databaseWorks() {
        guard databaseFailing else { return }
        databaseFailing = false
        logger.notice("MQTT: events are kept in the database again")
    }
}

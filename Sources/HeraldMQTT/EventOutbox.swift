import HeraldCore
import HeraldMQTTClient
import HeraldStore
import Logging

/// Publishes the hub's events so that none is lost (docs/mqtt.md): each event is written to the
/// database before libmosquitto has it, and removed only when the broker has acknowledged it
/// (PUBACK). A broker away for days, or a kill -9 with events in libmosquitto's memory, costs
/// nothing: the next connect (of this run or the next) sends what is still owed.
///
/// At least once, not exactly once: a crash between the broker's PUBACK and the row's removal
/// sends that event again at the next start. Events carry the announcement's id and request id,
/// so a backend recognises a repeat.
///
/// Each step (send, flush, acknowledgement) is one job (`SerialJobs`, as the safeguard's): a
/// flush never reads the rows while a send or a removal is half done.
actor EventOutbox {
    let client: MosquittoClient
    let monitor: LinkMonitor
    /// The database file of the daemon's start. Opened here, not taken from the context: a daemon
    /// that started without its file has a context database in memory for good, and a reload
    /// that moves the file would leave the ids in flight pointing into another one.
    let databasePath: String
    let logger: Logger
    private var opened: AppDatabase?
    /// Rows handed to libmosquitto, by its message id, until their PUBACK. After a reconnect
    /// libmosquitto sends these again by itself, so `flush` must not.
    private var inFlight: [Int32: Int64] = [:]
    /// Acknowledged rows whose removal failed (the disk full): removed at the next flush, never
    /// sent again meanwhile.
    private var acknowledgedNotRemoved: Set<Int64> = []
    /// Events the database could not take: kept here, bounded, until the next connect. Only these
    /// are lost by a crash.
    private var unwritten: [(topic: String, payload: [UInt8])] = []
    private var databaseFailing = false
    private let jobs = SerialJobs()

    init(client: MosquittoClient, monitor: LinkMonitor, databasePath: String, logger: Logger) {
        self.client = client
        self.monitor = monitor
        self.databasePath = databasePath
        self.logger = logger
    }

    /// Keeps `payload` until the broker has it, and publishes it now if the broker is there.
    func send(_ topic: String, _ payload: [UInt8]) async {
        await jobs.serially {
            let id: Int64
            do {
                id = try await database().holdEvent(topic: topic, payload: payload)
                databaseWorks()
            } catch {
                databaseFailed(error)
                if !publishUnwritten(topic, payload) {
                    unwritten.append((topic, payload))
                    if unwritten.count > AppDatabase.eventOutboxLimit { unwritten.removeFirst(unwritten.count - AppDatabase.eventOutboxLimit) }
                }
                return
            }
            await publish(HeldEvent(id: id, topic: topic, payload: payload))
        }
    }

    /// Publishes a message that is not owed if it cannot go now (the retained presence).
    func sendNow(_ topic: String, _ payload: [UInt8], retain: Bool) {
        _ = try? client.publish(topic, payload, retain: retain)
    }

    /// At each connect: everything still owed that libmosquitto does not hold, in the order it
    /// was written (what waited in memory, if the database failed, first).
    func flush() async {
        await jobs.serially {
            for id in acknowledgedNotRemoved where (try? await database().releaseEvent(id: id)) != nil {
                acknowledgedNotRemoved.remove(id)
            }
            let waiting = unwritten
            unwritten = []
            for (topic, payload) in waiting where !publishUnwritten(topic, payload) { unwritten.append((topic, payload)) }
            let owed: [HeldEvent]
            do {
                owed = try await database().heldEvents()
                databaseWorks()
            } catch {
                databaseFailed(error)
                return
            }
            let handedOver = Set(inFlight.values)
            for event in owed where !handedOver.contains(event.id) && !acknowledgedNotRemoved.contains(event.id) {
                guard await publish(event) else { break }
            }
        }
    }

    /// The broker answered message `mid`. `reason` 0x80 and up is a refusal: a quota exceeded
    /// (0x97) may pass later, so that one stays owed; any other (its ACL, most often) never will.
    func acknowledged(mid: Int32, reason: Int32) async {
        await jobs.serially {
            guard let id = inFlight.removeValue(forKey: mid) else { return }
            if reason == Self.quotaExceeded { return }
            if reason < 0x80 { monitor.update { $0.eventsPublished += 1 } }
            await release(id)
        }
    }

    static let quotaExceeded: Int32 = 0x97

    // MARK: - Inside a job

    /// The file, opened at the first use and again after an open that failed.
    private func database() throws -> AppDatabase {
        if let opened { return opened }
        let database = try AppDatabase(path: databasePath)
        opened = database
        return database
    }

    /// Hands `event` to libmosquitto; false when the broker is not connected (it stays owed).
    /// An event libmosquitto will never take (too big for the broker, say) is logged and dropped.
    private func publish(_ event: HeldEvent) async -> Bool {
        do {
            inFlight[try client.publish(event.topic, event.payload)] = event.id
            return true
        } catch where error.code == MosquittoError.noConnection {
            return false
        } catch {
            logger.error("MQTT: an event for \(event.topic) cannot be published and is dropped: \(error)")
            await release(event.id)
            return true
        }
    }

    private func publishUnwritten(_ topic: String, _ payload: [UInt8]) -> Bool {
        guard (try? client.publish(topic, payload)) != nil else { return false }
        monitor.update { $0.eventsPublished += 1 }
        return true
    }

    private func release(_ id: Int64) async {
        do {
            try await database().releaseEvent(id: id)
        } catch {
            acknowledgedNotRemoved.insert(id)
            databaseFailed(error)
        }
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

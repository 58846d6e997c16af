import Foundation
import HeraldConfig
import HeraldMQTTClient
import Synchronization

/// The console's one connection to the broker: the ingest reads what it delivers, the page
/// publishes test announcements through it. Its last will says the console went away. Each
/// message is appended to the console's spool as it arrives (`IngestSpool`).
public final class FleetLink: Sendable {
    let client: MosquittoClient
    let settings: FleetSettings
    let spool: IngestSpool
    /// What the spool held when opened, until the ingest takes it (`takeReplay`).
    private let replay: Mutex<[IngestSpool.Record]>
    private let state = Mutex<(connected: Bool, lastError: String?, displaced: Bool)>((false, nil, false))

    /// A configured link, not connected yet (`start`), its spool in `stateDirectory`
    /// (`fleet-<name>.spool`, created with the folder if need be).
    public init(settings: FleetSettings, stateDirectory: String) throws {
        self.settings = settings
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let (spool, replay) = try IngestSpool.open((stateDirectory as NSString).appendingPathComponent("fleet-\(settings.name).spool"))
        self.spool = spool
        self.replay = Mutex(replay)
        // Not "retain as published": a message flagged retained is then one handed over at
        // subscribe time, older than it looks (HubMessage.health's `live`).
        // A hub message over the console's limits is refused anyway (HubMessage.decode): asking the
        // broker to drop the largest keeps a 100 MB publish out of this process's memory.
        var broker = settings.broker
        broker.maximumPacketSize = UInt32(HubMessageLimits.maxPacketBytes)
        client = try MosquittoClient(settings: broker, subscriptions: settings.subscriptions, retainAsPublished: false,
                                     will: (Self.statusTopic(settings), Array(#"{"state":"offline"}"#.utf8))) { message in
            message.sequence = spool.append(topic: message.topic, payload: message.payload, retained: message.retained,
                                            receivedAt: message.receivedAt)
        }
    }

    static func statusTopic(_ settings: FleetSettings) -> String { "herald-fleet/\(settings.name)/status" }

    public func start() { client.start() }

    /// What the spool held when opened, once: the ingest writes it before anything new (and the
    /// link does not keep a long outage's worth of it in memory after that).
    func takeReplay() -> [IngestSpool.Record] { replay.withLock { records in defer { records = [] }; return records } }

    /// Says goodbye, disconnects ending its broker session (a clean stop leaves nothing for the
    /// broker to hold for it) and ends the message stream. Blocks briefly: runs on a thread of its own.
    func stop() {
        let (client, topic) = (client, Self.statusTopic(settings))
        Thread { client.stop(goodbye: (topic, Array(#"{"state":"offline"}"#.utf8)), endSession: true) }.start()
    }

    var events: AsyncStream<MosquittoClient.Event> { client.events }

    var isConnected: Bool { state.withLock { $0.connected } }
    var lastError: String? { state.withLock { $0.lastError } }

    func moved(connected: Bool, error: String? = nil) {
        state.withLock { $0 = (connected, error ?? $0.lastError, $0.displaced) }
    }

    /// Whether another client took this console's client id, and the link stopped for good.
    var displaced: Bool { state.withLock { $0.displaced } }

    /// Another client took this console's client id: the link stops (no reconnect to take it
    /// back) and `lastError` says why from now on.
    func displace(_ why: String) {
        let first = state.withLock { state -> Bool in
            defer { state = (false, why, true) }
            return !state.displaced
        }
        if first { stop() }
    }

    /// Publishes a test announcement (QoS 1, not retained: a retained one is never said).
    func publish(_ topic: String, _ payload: [UInt8]) throws {
        try client.publish(topic, payload, retain: false)
    }
}

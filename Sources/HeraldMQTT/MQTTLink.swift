import Foundation
import HeraldApp
import HeraldConfig
import HeraldCore
import HeraldIntake
import HeraldMQTTClient
import Logging
import ServiceLifecycle

/// The hub's MQTT link as a `Service` of `herald serve` (DESIGN.md "Reaching hubs"): takes
/// announcements from `herald/<hub>/announce` and its groups' topics through the same intake as
/// the HTTP API (source `mqtt`), publishes each outcome to `herald/<hub>/events`, and keeps a
/// retained `herald/<hub>/status` (`online` on connect; `offline` on a clean stop and as the will)
/// and a retained heartbeat `herald/<hub>/health` (`HubHealth`) every `mqtt.health_interval` and
/// at once when it changes in a way that matters.
///
/// A broker that is away never stops the daemon: the loop retries with backoff while speech
/// through the API goes on, and `monitor` tells `/v1/status` how the link stands.
public struct MQTTLink: Service {
    public let monitor: LinkMonitor
    let settings: MQTTSettings
    let intake: AnnouncementIntake
    let daemon: AnnouncementDaemon
    let live: LiveContext
    let reminders: ReminderService?
    let calendars: CalendarService?
    /// Presses from the buttons' topics (`buttons.<name>.mqtt`, zigbee2mqtt's).
    let buttons: ButtonService?
    let version: String
    let logger: Logger

    public init(settings: MQTTSettings, daemon: AnnouncementDaemon, live: LiveContext, reminders: ReminderService?,
                calendars: CalendarService? = nil, buttons: ButtonService? = nil, version: String, logger: Logger) {
        self.settings = settings
        self.daemon = daemon
        self.live = live
        self.reminders = reminders
        self.calendars = calendars
        self.buttons = buttons
        self.version = version
        self.logger = logger
        intake = AnnouncementIntake(live: live)
        monitor = LinkMonitor(LinkStatus(broker: settings.brokerURL, hub: settings.hub, clientID: settings.clientID,
                                         subscriptions: settings.subscriptions))
    }

    static let offline = Array(#"{"state":"offline"}"#.utf8)

    public func run() async throws {
        let client: MosquittoClient
        do {
            client = try MosquittoClient(settings: settings, will: (settings.statusTopic, Self.offline))
        } catch {
            // Bad TLS files and the like: said in the status and the log, the rest of the daemon serves.
            monitor.moved(to: .stopped, error: "\(error)")
            logger.error("MQTT link not started: \(error)")
            try? await gracefulShutdown()
            return
        }
        let outbox = EventOutbox(client: client, monitor: monitor, databasePath: live.value.configuration.databasePath, logger: logger)
        client.start()
        logger.info("MQTT: connecting to \(settings.brokerURL) as \(settings.clientID), topics \(settings.subscriptions.joined(separator: ", "))")
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await reportTakenUp(outbox: outbox) }
                // Not in the group: the group waits for the outcomes still to report after the
                // link stops; the heartbeat must end with the link.
                let beating = Task { await heartbeat(client: client, outbox: outbox) }
                for await event in client.events {
                    switch event {
                    case .connected:
                        monitor.moved(to: .connected)
                        logger.notice("MQTT: connected to \(settings.brokerURL)")
                        group.addTask {
                            await outbox.sendNow(settings.statusTopic, await presence(), retain: true)
                            await outbox.flush()
                        }
                    case .down(let reason, let retry):
                        monitor.moved(to: .waiting, error: reason, retryIn: retry)
                        logger.warning("MQTT: \(settings.brokerURL): \(reason); trying again in \(retry)")
                    case .message(let message):
                        monitor.update { $0.received += 1 }
                        // One at a time, so announcements queue in the order the broker delivered them.
                        if let accepted = await take(message, outbox: outbox) {
                            group.addTask { await report(accepted, topic: message.topic, outbox: outbox) }
                        }
                    case .acknowledged(let mid, let reason):
                        group.addTask { await outbox.acknowledged(mid: mid, reason: reason) }
                    case .refused(let what):
                        // Most often the broker's ACL: the hub runs on without that topic, and says so.
                        monitor.update { $0.lastError = what }
                        logger.error("MQTT: \(what); check the broker's ACL for \(settings.username ?? "this hub's user")")
                    }
                }
                // The events ended (the client stopped): the heartbeat would beat on alone.
                beating.cancel()
            }
        } onGracefulShutdown: {
            // Ends the event stream above once the goodbye is out.
            Self.stop(client, goodbye: (settings.statusTopic, Self.offline))
        }
        // However the loop above ended (graceful shutdown, or the task cancelled), the thread
        // must be gone before this returns: the process cannot exit while it runs.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Self.stop(client, goodbye: (settings.statusTopic, Self.offline)) { done.resume() }
        }
        monitor.moved(to: .stopped)
    }

    /// `stop` waits (briefly) for the loop thread: on a thread of its own, not the cooperative pool.
    private static func stop(_ client: MosquittoClient, goodbye: (String, [UInt8]),
                             then done: @escaping @Sendable () -> Void = {}) {
        Thread {
            client.stop(goodbye: goodbye)
            done()
        }.start()
    }

    /// Validates and queues one message; returns the accepted row whose outcome is still to come.
    /// Everything else is answered on the events topic at once.
    private func take(_ message: MosquittoClient.Message, outbox: EventOutbox) async -> AnnouncementRecord? {
        let (topic, payload) = (message.topic, message.payload)
        guard settings.subscriptions.contains(topic) else {
            logger.warning("MQTT: ignored a message on \(topic), which Herald does not subscribe to")
            return nil
        }
        // A button's topic carries presses, never announcements.
        if settings.buttonTopics.contains(topic) {
            await takePress(message)
            return nil
        }
        func refuse(_ error: any Error) async {
            let (field, message) = (error as? IntakeError).map { ($0.field, $0.message) } ?? (nil, "\(error)")
            logger.warning("MQTT: message on \(topic) refused: \(field.map { "\($0): " } ?? "")\(message)")
            let event = MQTTEvent(hub: settings.hub, topic: topic, requestID: Self.requestID(in: payload), error: message, field: field)
            await outbox.send(settings.eventsTopic, event.json)
        }
        // A retained message is handed over again at every subscribe: at every reconnect and
        // every restart. Said once, it would be said at each of them (DESIGN.md "Security").
        guard !message.retained else {
            HeraldMetrics.refused(.retained, via: "mqtt")
            await refuse(IntakeError.badRequest("retain", Self.retainedRefusal(topic)))
            return nil
        }
        // Two signatures leave it open which one the sender meant: neither is taken.
        guard message.signatures.count <= 1 else {
            await refuse(IntakeError.badRequest(MosquittoClient.signatureProperty,
                                             "the message carries \(message.signatures.count) \(MosquittoClient.signatureProperty) user properties; send one"))
            return nil
        }
        // The raw `t=UNIX_SECONDS,v1=HEX` value of the `herald-signature` user property, or nil.
        let signature = message.signatures.first
        let request: AnnouncementRequest
        do {
            // One client for the whole broker: the broker's ACL decides who may publish here, and
            // api.require_signature what must carry the backend's signature.
            request = try await intake.request(from: payload, format: .detect, source: .mqtt, client: "", signature: signature)
        } catch {
            await refuse(error)
            return nil
        }
        do {
            switch try await daemon.submit(request) {
            case .accepted(let record):
                // The row is written (the daemon's answer waits for it): from here a kill -9 no
                // longer loses the message. libmosquitto acknowledged it to the broker before this
                // callback ran, so a backend that publishes again until it sees `accepted` (the
                // request id makes a repeat harmless) closes that window (docs/mqtt.md).
                await outbox.send(settings.eventsTopic, MQTTEvent(hub: settings.hub, topic: topic, record: record, outcome: "accepted").json)
                return record
            case .duplicate(let original):
                await outbox.send(settings.eventsTopic, MQTTEvent(hub: settings.hub, topic: topic, record: original, outcome: "duplicate").json)
            case .refused(let record, _):
                await outbox.send(settings.eventsTopic, MQTTEvent(hub: settings.hub, topic: topic, record: record, outcome: "refused").json)
            }
        } catch {
            await refuse(error)
        }
        return nil
    }

    /// Waits for the announcement's outcome and publishes it. A daemon that stops first leaves it
    /// queued for the next start, which reports it (`reportTakenUp`).
    private func report(_ record: AnnouncementRecord, topic: String, outbox: EventOutbox) async {
        guard let finished = try? await daemon.waitUntilFinished(id: record.id), finished.outcome != nil else { return }
        await outbox.send(settings.eventsTopic, MQTTEvent(hub: settings.hub, topic: topic, record: finished).json)
    }

    /// The outcomes of what an earlier run accepted over MQTT and could not report (killed, or
    /// stopped with it queued): this run says it, or logged it played from the said mark. The
    /// topic it came in on is not logged: the events name the hub's own announce topic.
    private func reportTakenUp(outbox: EventOutbox) async {
        let rows = await daemon.rowsTakenUpFromLastRun().filter { $0.source == .mqtt }
        await withDiscardingTaskGroup { group in
            for row in rows { group.addTask { await report(row, topic: settings.announceTopic, outbox: outbox) } }
        }
    }

    /// Publishes the retained heartbeat every `mqtt.health_interval`, and at once (within one look,
    /// every 5 s at most) when something that matters changed or the link came back. Not queued
    /// while the broker is away: a heartbeat is worth only its moment.
    private func heartbeat(client: MosquittoClient, outbox: EventOutbox) async {
        let interval = settings.healthInterval
        let look = min(interval, .seconds(5))
        var published: (health: HubHealth, at: ContinuousClock.Instant)?
        while !Task.isCancelled {
            if client.isConnected {
                let health = await HubHealth.gather(settings: settings, daemon: daemon, live: live, reminders: reminders, calendars: calendars,
                                                    version: version)
                if published.map({ $0.health.significant != health.significant || ContinuousClock.now - $0.at >= interval }) ?? true {
                    await outbox.sendNow(settings.healthTopic, health.json, retain: true)
                    published = (health, ContinuousClock.now)
                }
            } else {
                published = nil
            }
            try? await Task.sleep(for: look)
        }
    }

    /// The retained `online` status: what a backend wants to see of a hub before it sends to it.
    private func presence() async -> [UInt8] {
        let report = await StatusReport.gather(context: live.value, sound: await daemon.soundSystem)
        var object: [String: Any] = ["state": "online", "version": version, "since": ISO8601DateFormatter().string(from: Date())]
        if let sink = report.sink {
            object["sink"] = sink.name
            object["muted"] = sink.muted
            object["volume_percent"] = sink.volumePercent
        } else {
            object["sink_error"] = report.serverError ?? report.sinkError ?? "no sink"
        }
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    /// What the `error` event and the log say of a retained message.
    static func retainedRefusal(_ topic: String) -> String {
        "the message was retained, and retained messages are never said: the broker hands one over again at every "
            + "subscribe, so it would be said at every reconnect and restart. Publish without the retain flag "
            + "(mosquitto_pub without -r, retain=false), and clear this one with an empty retained publish "
            + "(mosquitto_pub -r -n -t \(topic))"
    }

    /// The request id of a payload Herald could not read, when one can be found, so the error
    /// event names the message it answers.
    static func requestID(in payload: [UInt8]) -> String? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] else { return nil }
        let data = (object["message"] as? [String: Any])?["data"] as? [String: Any]
        return (object["request_id"] ?? data?["request_id"]) as? String
    }
}

import Foundation
import HeraldCore
import Logging
import ServiceLifecycle
import UnixSignals

/// `herald serve` as one `Service`, as hummingbird's `Application` is: the sound connection, the
/// queue, reminders, the config reloader and the edges a caller adds (the HTTP API, the MQTT
/// link), started and stopped in one order.
///
/// Services stop in reverse order: the queue first (it fades out, restores, and answers every
/// request waiting for an outcome), so neither the API's nor the MQTT link's graceful stop waits
/// on it; the reloader next; the edges last (the link then says `offline` and disconnects).
public struct HeraldDaemon: Service {
    /// The daemon's parts, made before the edges that take requests (`prepare`).
    public struct Parts: Sendable {
        /// The one holder of the config: the edges read it per request, the queue per job.
        public let live: LiveContext
        public let daemon: AnnouncementDaemon
        public let reminders: ReminderService
        /// Calendars read into reminders (`calendars:`).
        public let calendars: CalendarService
        /// The buttons' presses (`buttons:`).
        public let buttons: ButtonService
        public let logger: Logger
        let connector: SoundConnector
        let soundChanges: AsyncStream<Void>
    }

    public let parts: Parts
    private let edges: [any Service]
    private let signals: [UnixSignal]
    private let shutdownLimit: Duration

    /// Connects once (a journal left by a crash is applied before anything is served), warms the
    /// voices, and makes the queue and reminders, ready for the edges.
    /// - Parameter connect: makes a sound connection (PulseAudio unless a test passes its own).
    public static func prepare(context: HeraldContext, logger: Logger,
                               connect: @escaping @Sendable (Duration, Logger) async throws -> any SoundConnection
                                   = SoundConnector.pulseAudio) async -> Parts {
        let live = LiveContext(context)
        let (soundChanges, soundChanged) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let connector = SoundConnector(logger: logger, connect: connect, onConnect: { sound in
            // Before anything plays on a new connection: a crash or a lost server may have left
            // the sink raised and the radio ducked.
            do {
                for restored in try await JournalRestorer(context: live.value).restore(using: sound) {
                    logger.notice("applied the pending restore journal", metadata: ["sink": "\(restored.entry.sinkName)"])
                }
            } catch {
                logger.error("could not apply the pending restore journal yet: \(error)")
            }
        }, changed: { soundChanged.yield() })
        // One attempt before serving, so a pending journal is applied first when a server answers.
        await connector.connectOnce()
        let warm = await Warmup.run(live.value)
        let daemon = AnnouncementDaemon(live: live, connector: connector, warmFormat: warm.speechFormat)
        let reminders = ReminderService(live: live, daemon: daemon)
        return Parts(live: live, daemon: daemon, reminders: reminders, calendars: CalendarService(live: live, reminders: reminders),
                     buttons: ButtonService(live: live, daemon: daemon, reminders: reminders),
                     logger: logger, connector: connector, soundChanges: soundChanges)
    }

    /// - Parameters:
    ///   - edges: the services that take requests (the HTTP API, the MQTT link), made from `parts`.
    ///   - signals: what stops it gracefully (none in a test, which stops it itself).
    ///   - shutdownLimit: past this, what has not stopped is cancelled: a client that never lets
    ///     its answer finish must not keep the daemon from stopping. The sink is restored before
    ///     (the queue stops first) or by the journal at the next start.
    public init(parts: Parts, edges: [any Service], signals: [UnixSignal] = [.sigterm, .sigint],
                shutdownLimit: Duration = .seconds(8)) {
        self.parts = parts
        self.edges = edges
        self.signals = signals
        self.shutdownLimit = shutdownLimit
    }

    public func run() async throws {
        let parts = self.parts
        let services: [any Service] = edges + [
            ConfigReloader(daemon: parts.daemon, reminders: parts.reminders, calendars: parts.calendars, live: parts.live, logger: parts.logger),
            QueueService(parts: parts),
        ]
        var configuration = ServiceGroupConfiguration(services: services.map { .init(service: $0) },
                                                      gracefulShutdownSignals: signals, logger: parts.logger)
        configuration.maximumGracefulShutdownDuration = shutdownLimit
        try await ServiceGroup(configuration: configuration).run()
    }
}

/// The queue worker, its sound connection, reminders and the log's retries as one service:
/// graceful shutdown fades the current announcement, restores, and leaves the rest queued.
struct QueueService: Service {
    let parts: HeraldDaemon.Parts

    func run() async throws {
        let (daemon, live, reminders, calendars, connector, soundChanges) = (parts.daemon, parts.live, parts.reminders, parts.calendars,
                                                                             parts.connector, parts.soundChanges)
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await connector.run() }
                // Reminders feed the queue, calendars feed reminders; they stop with it (cancelled below).
                group.addTask { await reminders.run() }
                group.addTask { await calendars.run() }
                // The rooms' volumes the buttons set, before the first announcement if it can.
                group.addTask { await parts.buttons.start() }
                group.addTask { for await _ in soundChanges { await daemon.soundChanged() } }
                // Rooms with a microphone (rooms.<room>.noise) are listened to between announcements.
                group.addTask { await NoiseMonitor(live: live, logger: parts.logger).run() }
                group.addTask {
                    // At start, then daily: history.retention_days.
                    repeat { await daemon.pruneHistory() } while (try? await Task.sleep(for: .seconds(86_400))) != nil
                }
                group.addTask {
                    // A log or journal that could not be written is written as soon as the disk
                    // lets it: the log first, as reopening the database makes its folder anew.
                    while (try? await Task.sleep(for: .seconds(2))) != nil {
                        let context = live.value
                        await context.store.flush()
                        await context.journal.retry()
                    }
                }
                await daemon.run()
                // The audio of the last announcements, kept for listening back, is on disk.
                await KeptAudio.drained()
                group.cancelAll()
            }
        } onGracefulShutdown: {
            Task { await daemon.stop() }
        }
    }
}

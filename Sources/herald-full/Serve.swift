import ArgumentParser
import AsyncHTTPClient
import Foundation
import HeraldApp
import HeraldConfig
import HeraldMQTT
import HeraldServer
import HeraldWeb
import Hummingbird
import Logging
import PulseAudio
import ServiceLifecycle

extension Herald {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Run the daemon: the announcement queue and the HTTP API on api.listen.",
            discussion: """
                Runs on the built-in defaults when there is no config file, and without a sound server: \
                announcements wait for one (each within its priority's max_age) and /v1/status says what \
                they wait for. A journal left by a crash is applied before serving and again whenever the \
                server comes back. SIGTERM or Ctrl-C fades out what plays, restores the sink, leaves the \
                rest queued for the next start, and exits 0. SIGHUP or a change to the file reloads the config.
                """)

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            var configured = options.makeLogger()
            if !options.verbose && ProcessInfo.processInfo.environment["HERALD_LOG_LEVEL"] == nil { configured.logLevel = .info }
            let logger = configured
            // Before anything is counted: swift-metrics binds each metric to the backend in place then.
            _ = MetricsExporter.shared
            HeraldMetrics.start(version: Herald.version)
            var context = try await options.makeContext(logger: logger, tolerant: true)
            for exposure in SecretFile.exposed(context.configuration.secretFiles) { logger.warning("\(exposure)") }
            // One HTTP client for what the daemon fetches and posts (audio_url, escalations), shut
            // down once every service has stopped.
            let connectTimeout = Duration.milliseconds(context.configuration.audioURL.connectTimeoutMilliseconds)
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .herald(connectTimeout: connectTimeout))
            context.httpClient = http
            let live = LiveContext(context)
            let (soundChanges, soundChanged) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            let connector = SoundConnector(logger: logger, onConnect: { sound in
                // Before anything plays on a new connection: a crash or a lost server may have
                // left the sink raised and the radio ducked.
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
            let daemon = AnnouncementDaemon(context: live.value, connector: connector, warmFormat: warm.speechFormat)
            // The MQTT link's settings are read at start: a reload does not reconnect it.
            let reminders = ReminderService(live: live, daemon: daemon)
            let link = live.value.configuration.mqtt.map {
                MQTTLink(settings: $0, daemon: daemon, live: live, reminders: reminders, version: Herald.version, logger: logger)
            }
            let monitor = link?.monitor
            let api = HeraldAPI(daemon: daemon, live: live, version: Herald.version, link: { monitor?.snapshot() },
                                reminders: reminders)
            var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: api.application(logger: logger))]
            let socket = LocalAPISocket.claim(port: live.value.configuration.api.port, logger: logger)
            if let socket { services.append(.init(service: api.application(logger: logger, socket: socket))) }
            // The server leaves its socket file behind; the next CLI would find it refused and
            // play locally anyway, but a folder of stale sockets helps nobody.
            defer { if let socket { unlink(socket) } }
            // `herald say --config FILE` (or HERALD_CONFIG) reaches this socket without the YAML.
            let configLink = socket.flatMap { LocalAPISocket.link(configPath: options.configPath, to: $0, logger: logger) }
            defer { configLink?.remove() }
            // Services stop in reverse order: the queue first (it fades out, restores, and answers
            // every request waiting for an outcome), so neither the API's nor the MQTT link's
            // graceful stop waits on it; the link then says `offline` and disconnects.
            services.append(.init(service: ConfigReloader(daemon: daemon, reminders: reminders, live: live, logger: logger)))
            if let link { services.append(.init(service: link)) }
            services.append(.init(service: DaemonService(daemon: daemon, connector: connector, soundChanges: soundChanges, live: live,
                                                         reminders: reminders)))
            var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
            // A client that never lets its answer finish (one that stopped reading) must not keep
            // the daemon from stopping: past this, what is left is cancelled. The sink is
            // restored before (the daemon's service stops first) or by the journal at next start.
            configuration.maximumGracefulShutdownDuration = .seconds(8)
            let group = ServiceGroup(configuration: configuration)
            logger.info("herald serving on \(live.value.configuration.api.baseURL)")
            do { try await group.run() } catch {
                try? await http.shutdown()
                throw error
            }
            try await http.shutdown()
        }
    }
}

/// The queue worker, its sound connection and the log's retries as one Service: graceful shutdown
/// fades the current announcement, restores, and leaves the rest queued.
struct DaemonService: Service {
    let daemon: AnnouncementDaemon
    let connector: SoundConnector
    let soundChanges: AsyncStream<Void>
    let live: LiveContext
    let reminders: ReminderService

    func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await connector.run() }
                // Reminders feed the queue; they stop with it (cancelled below).
                group.addTask { await reminders.run() }
                group.addTask { for await _ in soundChanges { await daemon.soundChanged() } }
                group.addTask {
                    // At start, then daily: history.retention_days.
                    repeat { await daemon.pruneHistory() } while (try? await Task.sleep(for: .seconds(86_400))) != nil
                }
                group.addTask {
                    // A log or journal that could not be written is written as soon as the disk lets
                    // it: the log first, as reopening the database makes its folder anew.
                    while (try? await Task.sleep(for: .seconds(2))) != nil {
                        let context = live.value
                        await context.store.flush()
                        await context.journal.retry()
                    }
                }
                await daemon.run()
                group.cancelAll()
            }
        } onGracefulShutdown: {
            Task { await daemon.stop() }
        }
    }
}

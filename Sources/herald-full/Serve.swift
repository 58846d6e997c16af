import ArgumentParser
import AsyncHTTPClient
import Foundation
import HeraldApp
import HeraldConfig
import HeraldCore
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
            let parts = await HeraldDaemon.prepare(context: context, logger: logger)
            let socket = LocalAPISocket.claim(port: context.configuration.api.port, logger: logger)
            // The server leaves its socket file behind; the next CLI would find it refused and
            // play locally anyway, but a folder of stale sockets helps nobody.
            defer { if let socket { unlink(socket) } }
            // `herald say --config FILE` (or HERALD_CONFIG) reaches this socket without the YAML.
            let configLink = socket.flatMap { LocalAPISocket.link(configPath: options.configPath, to: $0, logger: logger) }
            defer { configLink?.remove() }
            // The MQTT link's settings are read at start: a reload does not reconnect it.
            let link = context.configuration.mqtt.map {
                MQTTLink(settings: $0, daemon: parts.daemon, live: parts.live, reminders: parts.reminders, calendars: parts.calendars,
                         buttons: parts.buttons, version: Herald.version, logger: logger)
            }
            let monitor = link?.monitor
            let api = HeraldAPI(daemon: parts.daemon, live: parts.live, version: Herald.version,
                                link: { monitor?.snapshot() }, reminders: parts.reminders, calendars: parts.calendars,
                                buttons: parts.buttons)
            var edges: [any Service] = [api.application(logger: logger)]
            if let socket { edges.append(api.application(logger: logger, socket: socket)) }
            if let link { edges.append(link) }
            let herald = HeraldDaemon(parts: parts, edges: edges)
            logger.info("herald serving on \(context.configuration.api.baseURL)")
            do { try await herald.run() } catch {
                try? await http.shutdown()
                throw error
            }
            try await http.shutdown()
        }
    }
}

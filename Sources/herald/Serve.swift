import ArgumentParser
import HeraldApp
import HeraldServer
import Hummingbird
import Logging
import PulseAudio
import ServiceLifecycle

extension Herald {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the daemon: the announcement queue and the HTTP API on api.listen.",
            discussion: "SIGTERM or Ctrl-C fades out what plays, restores the sink, and exits 0.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            var logger = options.makeLogger()
            if !options.verbose && ProcessInfo.processInfo.environment["HERALD_LOG_LEVEL"] == nil { logger.logLevel = .info }
            let context = try await options.makeContext(logger: logger)
            let sound: PulseConnection
            do { sound = try await context.connectSound() } catch { throw fail(error) }
            let settings = context.configuration.api
            let daemon = AnnouncementDaemon(context: context, sound: sound, settings: context.configuration.queue)
            let api = HeraldAPI(daemon: daemon, context: context, version: Herald.version)
            let app = Application(router: api.router(),
                                  configuration: .init(address: .hostname(settings.host, port: settings.port),
                                                       serverName: "herald"),
                                  logger: logger)
            // Services stop in reverse order: the API first, then the queue fades out and restores.
            let group = ServiceGroup(configuration: .init(
                services: [.init(service: DaemonService(daemon: daemon)),
                           .init(service: ConfigReloader(daemon: daemon, initial: context, logger: logger)),
                           .init(service: app)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            logger.info("herald serving on \(settings.baseURL)")
            try await group.run()
        }
    }
}

/// The queue worker as a Service: graceful shutdown fades the current announcement and restores.
struct DaemonService: Service {
    let daemon: AnnouncementDaemon

    func run() async throws {
        await withGracefulShutdownHandler {
            await daemon.run()
        } onGracefulShutdown: {
            Task { await daemon.stop() }
        }
    }
}

import Foundation

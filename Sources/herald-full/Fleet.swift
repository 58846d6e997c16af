import ArgumentParser
import Foundation
import HeraldConfig
import HeraldFleet
import Logging
import ServiceLifecycle

extension Herald {
    struct Fleet: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fleet",
            abstract: "The console of many hubs: their state, events and alarms (docs/fleet.md).",
            subcommands: [FleetServe.self, FleetSimulate.self])
    }

    struct FleetServe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Run a fleet console: the hubs' messages into PostgreSQL, alarms, the page on fleet.listen.",
            discussion: """
                Reads fleet: from the config file (fleet.broker and fleet.database at least). Any number of \
                consoles may run against the same broker and database: each hub message reaches one of them \
                (the shared subscription $share/GROUP/..., fleet.share_group), and each alarm is opened and sent once. \
                A database or broker that is away is waited for; SIGTERM or Ctrl-C stops it.
                """)

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            var logger = options.makeLogger()
            if !options.verbose && ProcessInfo.processInfo.environment["HERALD_LOG_LEVEL"] == nil { logger.logLevel = .info }
            let configuration = try await options.loadConfiguration()
            guard let settings = configuration.fleet else {
                throw fail("no fleet console configured in \(configuration.file ?? "the built-in defaults"): set fleet.broker and fleet.database (see docs/fleet.md)")
            }
            let services: [any Service]
            do {
                services = try await FleetConsole.services(settings: settings, stateDirectory: configuration.stateDirectory, logger: logger)
            } catch {
                throw fail("the fleet console cannot start: \(error)")
            }
            var groupConfiguration = ServiceGroupConfiguration(
                services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
            // A stop always ends the process: whatever has not finished 10 s after SIGTERM is
            // cancelled, and 5 s after that the group gives up on it.
            groupConfiguration.maximumGracefulShutdownDuration = .seconds(10)
            groupConfiguration.maximumCancellationDuration = .seconds(5)
            let group = ServiceGroup(configuration: groupConfiguration)
            logger.info("herald fleet console \(settings.name) on \(settings.listenURL), broker \(settings.broker.brokerURL), database \(settings.database.description)")
            try await group.run()
        }
    }

    struct FleetSimulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "simulate",
            abstract: "Publish the documented messages of many hubs to a broker (for trying and testing a console).")

        @Option(help: ArgumentHelp("The broker.", valueName: "mqtt://HOST:PORT")) var broker: String
        @Option(help: "How many hubs.") var hubs = 500
        @Option(help: "Hub names: PREFIX0000, PREFIX0001, ...") var prefix = "sim-"
        @Option(help: "Hubs are spread over this many groups (group-0, ...); 0 for none.") var groups = 4
        @Option(help: ArgumentHelp("Heartbeat interval, in seconds.", valueName: "SECONDS")) var interval = 60
        @Option(name: .customLong("events-per-second"), help: "Announcement events per second over all hubs.") var eventsPerSecond = 1.0
        @Option(help: ArgumentHelp("Stop after this many seconds (0: run until Ctrl-C).", valueName: "SECONDS")) var seconds = 0
        @Option(help: ArgumentHelp("First publish this many events dated over the last 24 hours (a day to chart).", valueName: "EVENTS"))
        var history = 0

        func validate() throws {
            guard (1...100_000).contains(hubs) else { throw ValidationError("--hubs must be 1 to 100000") }
            guard MQTTSettings.isTopicName(prefix + "0") else { throw ValidationError("--prefix must be letters, digits, - _ and .") }
            guard interval >= 1 else { throw ValidationError("--interval must be at least 1 second") }
            guard (0...1_000_000).contains(history) else { throw ValidationError("--history must be 0 to 1000000") }
        }

        func run() async throws {
            let address: BrokerAddress
            do { address = try BrokerAddress(broker) } catch { throw fail("--broker: \(error)") }
            var settings = MQTTSettings(broker: address, hub: "simulator")
            settings.clientID = "herald-simulator-\(getpid())"
            // Nothing is subscribed: no session worth keeping after it.
            settings.sessionExpiry = 0
            var plan = HubSimulator.Plan(hubs: hubs)
            plan.prefix = prefix
            plan.groups = groups
            plan.interval = .seconds(interval)
            plan.eventsPerSecond = eventsPerSecond
            let simulator = try HubSimulator(plan: plan, broker: settings)
            try await simulator.connect()
            if history > 0 {
                try simulator.publishHistory(history)
                print("published \(history) events dated over the last 24 hours")
            }
            print("simulating \(hubs) hubs on \(broker): heartbeats every \(interval) s, \(eventsPerSecond) events/s")
            let seconds = seconds
            _ = try? await SignalCanceller.run {
                if seconds > 0 {
                    try await withThrowingDiscardingTaskGroup { group in
                        group.addTask { try await simulator.run() }
                        try await Task.sleep(for: .seconds(seconds))
                        group.cancelAll()
                    }
                } else {
                    try await simulator.run()
                }
            }
            simulator.stop()
            print("published \(simulator.eventsPublished) events")
        }
    }
}

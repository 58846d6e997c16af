import HeraldConfig
import HeraldCore
import Logging
import ServiceLifecycle

/// `herald fleet serve`: the services of one console, to run in one `ServiceGroup`: the database
/// pool, the broker link and its ingest, the alarm keeper and the page with its API.
public enum FleetConsole {
    /// The services in the order they start (they stop in reverse: the page first, the pool last).
    /// Migrates the database first: a console whose database cannot be reached says so and stops.
    /// `stateDirectory`: where its spool is kept (`IngestSpool`).
    public static func services(settings: FleetSettings, stateDirectory: String, logger: Logger) async throws -> [any Service] {
        let store = FleetStore(settings.database, logger: logger)
        let metrics = FleetMetrics()
        let link = try FleetLink(settings: settings, stateDirectory: stateDirectory)
        let pool = PoolService(store: store)
        return [
            pool,
            MigratedFirst(store: store, logger: logger, then: FleetIngest(settings: settings, store: store, metrics: metrics, link: link, logger: logger)),
            MigratedFirst(store: store, logger: logger,
                          then: AlarmKeeper(settings: settings, store: store, metrics: metrics, logger: logger)),
            try FleetAPI(settings: settings, store: store, link: link, metrics: metrics, logger: logger).application(),
        ]
    }
}

/// The pool runs until the group stops.
struct PoolService: Service {
    let store: FleetStore
    func run() async throws { await store.client.run() }
}

/// Creates or upgrades the tables, retrying while the database is away (a console may start
/// before it), then runs `then`.
struct MigratedFirst<Then: Service>: Service {
    let store: FleetStore
    let logger: Logger
    let then: Then

    func run() async throws {
        var retries = Backoff(initial: .milliseconds(500), maximum: .seconds(10))
        while true {
            do {
                try await store.migrate()
                break
            } catch {
                let retry = retries.next()
                logger.error("fleet: cannot prepare the database yet: \(String(reflecting: error)); trying again in \(retry)")
                guard (try? await Task.sleep(for: retry)) != nil else { return }
            }
        }
        try await then.run()
    }
}

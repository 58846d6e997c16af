import Foundation
import HeraldConfig
import HeraldFleet
import Logging
import PostgresNIO

/// The fleet console's figures (docs/fleet.md, docs/performance.md "The fleet console"): events
/// ingested per second by one console into PostgreSQL, end to end from the broker, against one
/// INSERT per event on the same server in the same run; the page and the API with 5,000 and with
/// 100,000 more hubs beating at a real fleet's rate, against the whole list the page used to
/// fetch and `/v1/health` on the same console; and whether two consoles keep up with 100,000
/// hubs' heartbeats and events, against the rate they need. Runs when scripts/bench.sh has started its private broker and PostgreSQL
/// (`HERALD_BENCH_MQTT_PORT`, `HERALD_BENCH_PG_PORT`); `--fleet-only` runs this part alone.
struct FleetBench {
    let heraldBinary: String
    let brokerPort: Int
    let databasePort: Int
    let runs: Int
    let folder = NSTemporaryDirectory() + "herald-fleet-bench-\(UUID().uuidString.prefix(8))"
    let database = "herald_bench_\(getpid())"
    var databaseURL: String { "postgres://herald@127.0.0.1:\(databasePort)/\(database)" }
    let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }

    static let ingestHubs = 100
    static let ingestEvents = 30_000
    static let baselineEvents = 3_000
    static let pageHubs = 5_000
    static let nationalHubs = 100_000

    /// The part as scripts/bench.sh sets it up; nil without its PostgreSQL or broker.
    static func fromEnvironment(runs: Int) -> FleetBench? {
        let environment = ProcessInfo.processInfo.environment
        guard let binary = environment["HERALD_BIN"], let broker = environment["HERALD_BENCH_MQTT_PORT"].flatMap(Int.init),
              let database = environment["HERALD_BENCH_PG_PORT"].flatMap(Int.init) else { return nil }
        return FleetBench(heraldBinary: binary, brokerPort: broker, databasePort: database, runs: runs)
    }

    func run() async throws {
        print("Fleet console (release, private Mosquitto and PostgreSQL on loopback, fsync on):")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try await createDatabase()
        let client = PostgresClient(configuration: .init(host: "127.0.0.1", port: databasePort, username: "herald",
                                                         password: nil, database: database, tls: .disable))
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            let console = try BenchConsole(binary: heraldBinary, folder: folder, brokerPort: brokerPort, database: databaseURL)
            defer { console.stop() }
            try await console.waitUntilReady(log: folder + "/console-bench.log")
            let herald = try await ingest(console: console, client: client)
            let baseline = try await insertEach(client: client)
            print(String(format: "  console / one INSERT per event: %.1f (events per second, higher is better)", herald / baseline))
            try await page(Self.pageHubs, prefix: "page-", console: console, client: client)
            try await nationalFleet(console: console, client: client)
            print(String(format: "  console's peak resident memory: %.1f MB", console.peakResidentMB))
            group.cancelAll()
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// `CREATE DATABASE` on the private server, through its `postgres` database.
    func createDatabase() async throws {
        let admin = PostgresClient(configuration: .init(host: "127.0.0.1", port: databasePort, username: "herald",
                                                        password: nil, database: "postgres", tls: .disable))
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await admin.run() }
            try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(database)"), logger: logger)
            group.cancelAll()
        }
    }

    /// Median events per second from the first publish to the last event in PostgreSQL, over 3
    /// rounds of `ingestEvents` events from `ingestHubs` simulated hubs published as fast as one
    /// broker connection takes them.
    func ingest(console: BenchConsole, client: PostgresClient) async throws -> Double {
        let simulator = try await beating(Self.ingestHubs, prefix: "ingest-", client: client)
        defer { simulator.stop() }
        var rates: [Double] = [], publishRates: [Double] = []
        for round in 0..<3 {
            let before = try await count("SELECT count(*) FROM events", client)
            let started = ContinuousClock.now
            try simulator.publishEvents(Self.ingestEvents, startingAt: round * Self.ingestEvents)
            guard simulator.waitUntilAcknowledged(timeout: .seconds(60)) else { throw BenchError("the broker did not take every event in 60 s") }
            publishRates.append(Double(Self.ingestEvents) / (ContinuousClock.now - started).inSeconds)
            let deadline = ContinuousClock.now + .seconds(120)
            // Every 100 ms: a count on a growing table every few milliseconds would take the
            // console's CPU (2 cores here) inside the timed window.
            while try await count("SELECT count(*) FROM events", client) < before + Self.ingestEvents {
                guard ContinuousClock.now < deadline else { throw BenchError("the console wrote too few events in 120 s") }
                try await Task.sleep(for: .milliseconds(100))
            }
            rates.append(Double(Self.ingestEvents) / (ContinuousClock.now - started).inSeconds)
        }
        let median = rates.sorted()[1]
        print(String(format: "  ingest, %d events from %d hubs through the broker: median %.0f events/s (runs %@; the broker took them at %.0f/s)",
                     Self.ingestEvents, Self.ingestHubs, median, rates.map { String(format: "%.0f", $0) }.joined(separator: ", "),
                     publishRates.sorted()[1]))
        return median
    }

    /// The baseline: the same events, one autocommitted INSERT each over one pooled connection
    /// (what a backend that writes each message as it arrives does), into a copy of the table;
    /// the median of 3 rounds.
    func insertEach(client: PostgresClient) async throws -> Double {
        try await client.query("CREATE TABLE events_each (LIKE events INCLUDING ALL)", logger: logger)
        var rates: [Double] = []
        for round in 0..<3 { rates.append(try await insertEachRound(round, client: client)) }
        let rate = rates.sorted()[1]
        print(String(format: "  baseline, one INSERT per event (%d, same server, same indexes): median %.0f events/s (runs %@)",
                     Self.baselineEvents, rate, rates.map { String(format: "%.0f", $0) }.joined(separator: ", ")))
        return rate
    }

    private func insertEachRound(_ round: Int, client: PostgresClient) async throws -> Double {
        let at = Date()
        let started = ContinuousClock.now
        for n in (round * Self.baselineEvents)..<((round + 1) * Self.baselineEvents) {
            let hub = "ingest-\(String(format: "%04d", n % Self.ingestHubs))", id = "each-\(n)"
            let body = #"{"hub":"\#(hub)","id":"\#(id)","outcome":"played"}"#
            try await client.query("""
                INSERT INTO events_each (hub, at, outcome, announcement, request_id, body)
                VALUES (\(hub), \(at), 'played', \(id), \(id), \(body)::jsonb)
                ON CONFLICT (hub, announcement, outcome) WHERE announcement IS NOT NULL DO NOTHING
                """, logger: logger)
        }
        return Double(Self.baselineEvents) / (ContinuousClock.now - started).inSeconds
    }

    func brokerSettings(_ clientID: String) throws -> MQTTSettings {
        var settings = MQTTSettings(broker: try BrokerAddress("mqtt://127.0.0.1:\(brokerPort)"), hub: clientID)
        settings.sessionExpiry = 0
        settings.clientID = clientID
        return settings
    }

    func count(_ sql: String, _ client: PostgresClient) async throws -> Int {
        for try await value in try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Int64.self) {
            return Int(value)
        }
        return 0
    }
}

import Foundation
import HeraldConfig
import Logging
import PostgresNIO
import HeraldCore

/// The console's PostgreSQL: hubs, their events and alarms, shared by every console of the fleet.
/// One `PostgresClient` (a pool, run as a `Service` of the console) behind it; the tables are
/// created and upgraded by `migrate()` (`FleetSchema`).
public final class FleetStore: Sendable {
    /// The pool: `run()` it as a service for as long as the store is used.
    public let client: PostgresClient
    let logger: Logger

    public init(_ database: FleetSettings.Database, logger: Logger) {
        var configuration = PostgresClient.Configuration(host: database.host, port: database.port, username: database.user,
                                                         password: database.password, database: database.name, tls: .disable)
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.maximumConnections = 8
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
    }

    /// Creates or upgrades the tables. Two consoles starting at once take turns (an advisory lock).
    public func migrate() async throws {
        try await bounded(.seconds(60)) { try await self.migrateNow() }
    }

    private func migrateNow() async throws {
        try await transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(7380)", logger: logger)
            try await connection.query("CREATE TABLE IF NOT EXISTS herald_fleet_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                                       logger: logger)
            var applied = Set<Int>()
            for try await version in try await connection.query("SELECT version FROM herald_fleet_migrations", logger: logger).decode(Int.self) {
                applied.insert(version)
            }
            for (version, statements) in FleetSchema.migrations.enumerated() where !applied.contains(version + 1) {
                for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await connection.query("INSERT INTO herald_fleet_migrations (version) VALUES (\(version + 1))", logger: logger)
                logger.notice("fleet database: migration \(version + 1) applied")
            }
        }
    }

    /// Deletes events older than `age`, and alarms closed before then; returns how many events went.
    @discardableResult
    public func prune(olderThan age: Duration) async throws -> Int {
        let seconds = Int(age.inSeconds)
        return try await bounded(.seconds(60)) {
            var deleted = 0
            for try await count in try await self.client.query("""
                WITH gone AS (DELETE FROM events WHERE at < now() - make_interval(secs => \(seconds)) RETURNING 1)
                SELECT count(*)::bigint FROM gone
                """, logger: self.logger).decode(Int64.self) { deleted = Int(count) }
            try await self.client.query("DELETE FROM alarms WHERE state = 'closed' AND closed_at < now() - make_interval(secs => \(seconds))",
                                        logger: self.logger)
            return deleted
        }
    }

    /// Whether the database answers now (within 2 s).
    public func ping() async -> Bool {
        (try? await bounded(.seconds(2)) { try await self.client.query("SELECT 1", logger: self.logger) }) != nil
    }

    /// `body` in a transaction on one pooled connection: committed when it returns, rolled back
    /// when it throws. Not postgres-nio's `withTransaction`: its ROLLBACK after a connection has
    /// closed under it (the server stopped mid-transaction) is written to the closing channel
    /// without failing, and waits forever; a closed connection has rolled back on the server anyway.
    ///
    /// Run under a deadline (`bounded`), the work goes on after the caller has given up (postgres-nio
    /// does not stop a query on cancellation): so it never commits once cancelled, and with
    /// `statementTimeout` the server itself ends a statement that waits too long for a lock.
    func transaction<T: Sendable>(statementTimeout: Duration? = nil, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                if let statementTimeout {
                    let milliseconds = Int(statementTimeout.inSeconds * 1000)
                    try await connection.query(PostgresQuery(unsafeSQL: "SET LOCAL statement_timeout = \(milliseconds)"), logger: logger)
                }
                let value = try await body(connection)
                // The caller gave up (its deadline passed) and may be trying the same work again.
                try Task.checkCancellation()
                try await connection.query("COMMIT", logger: logger)
                return value
            } catch {
                // Bounded: a query written as the connection closes may never end.
                if !connection.isClosed {
                    _ = try? await bounded(.seconds(2)) { try await connection.query("ROLLBACK", logger: self.logger) }
                }
                throw error
            }
        }
    }

    /// Runs `query` on a pooled connection, waiting at most 5 s for the database to answer:
    /// what the page, the API and the alarm keeper read and write goes through here.
    @discardableResult
    func run(_ query: PostgresQuery) async throws -> PostgresRowSequence {
        try await bounded(.seconds(5)) { try await self.client.query(query, logger: self.logger) }
    }

    /// `work` within `limit`, or `DatabaseTimeout`: a pool whose server is down waits for a
    /// connection without end, and neither a page nor the ingest may wait with it.
    func bounded<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withDeadline(limit, timeoutError: { DatabaseTimeout(limit: limit) }, work)
    }
}

extension FleetStore {
    /// Runs `body` while this console holds the sweep lock (a session advisory lock on one pooled
    /// connection); skips it when another console holds it. The lock goes with the connection if
    /// this console dies.
    func whileHoldingSweepLock(_ body: () async throws -> Void) async throws {
        try await client.withConnection { connection in
            let held = try await bounded(.seconds(5)) {
                var held = false
                for try await got in try await connection.query("SELECT pg_try_advisory_lock(7381)", logger: self.logger).decode(Bool.self) { held = got }
                return held
            }
            guard held else { return }
            // A closed connection took its session lock with it (and a query to it may never end).
            let unlock = { [logger] in
                if !connection.isClosed {
                    _ = try? await self.bounded(.seconds(5)) { try await connection.query("SELECT pg_advisory_unlock(7381)", logger: logger) }
                }
            }
            do {
                try await body()
            } catch {
                await unlock()
                throw error
            }
            await unlock()
        }
    }
}

/// The database did not answer in time (it is down, or overloaded).
struct DatabaseTimeout: Error, CustomStringConvertible {
    var limit: Duration
    var description: String { "PostgreSQL did not answer within \(limit)" }
}

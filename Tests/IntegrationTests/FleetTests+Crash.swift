import Foundation
import Testing

/// A console's death (issue 44): killed mid-burst it loses nothing it had taken, and a database
/// outage opens no alarm for a hub that kept beating.
extension OnTheTestSink.FleetTests {
    /// How many of the events of hubs named `prefix...` the database holds: every row, and the
    /// distinct announcements among them.
    static func stored(_ database: String, _ prefix: String) -> (rows: Int, distinct: Int) {
        let counts = (try? Postgres.query(database, "SELECT count(*), count(DISTINCT (hub, announcement)) FROM events WHERE hub LIKE '\(prefix)%'")) ?? ""
        let numbers = counts.split(separator: "|").compactMap { Int($0) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : (0, 0)
    }

    /// Two consoles on the shared subscription, a burst of events, and one of them killed (kill -9)
    /// in the middle of it while its batches wait on a slow database, then started again under its
    /// name with its state folder: every event published is stored, once. (libmosquitto acknowledges a message as it hands it over; what a
    /// console held in memory, or the broker had in flight to it, died with it: 2 of 2,851 were
    /// lost so.)
    @Test func aConsoleKilledMidBurstLosesNoEvent() throws {
        let database = try Postgres.freshDatabase()
        let prefix = "burst-\(tag)-"
        let survivor = try FleetConsole(name: "ka-\(tag)", database: database)
        let victim = try FleetConsole(name: "kb-\(tag)", database: database)
        defer { survivor.stop() }
        let simulator = try simulate(hubs: 40, prefix: prefix, eventsPerSecond: 1500, seconds: 8)
        try SoundServer.waitFor("the burst under way", timeout: 20) { Self.stored(database, prefix).rows > 1500 }
        // A slow database (a lock held for 3 s): the consoles' batches wait, what they received
        // waits with them, and the victim dies holding a second's worth of messages.
        let blocker = try SoundServer.start(Postgres.bin + "/psql", [database, "-c", "BEGIN; LOCK TABLE hubs IN SHARE MODE; SELECT pg_sleep(3)"])
        defer { blocker.terminate() }
        try SoundServer.waitFor("a batch waiting on the lock", timeout: 10) {
            (try? Postgres.query(database, "SELECT count(*) FROM pg_locks WHERE relation = 'hubs'::regclass AND NOT granted")) != "0"
        }
        Thread.sleep(forTimeInterval: 1)
        victim.crash()
        Thread.sleep(forTimeInterval: 1)
        let again = try FleetConsole(name: "kb-\(tag)", database: database, state: victim.state)
        defer { again.stop() }
        let published = try published(simulator)
        #expect(published > 5000, "a burst: \(published) events")
        try? SoundServer.waitFor("every event stored", timeout: 40) { Self.stored(database, prefix).distinct >= published }
        let stored = Self.stored(database, prefix)
        #expect(stored.distinct == published, "published \(published), stored \(stored.distinct): \(published - stored.distinct) lost")
        #expect(stored.rows == stored.distinct, "each once: \(stored.rows) rows for \(stored.distinct) events")
        print("fleet crash: published \(published), stored \(stored.distinct) (\(stored.rows) rows); \(again.log.split(separator: "\n").filter { $0.contains("replaying") })")
    }
}

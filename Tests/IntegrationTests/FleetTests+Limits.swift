import Foundation
import Testing

/// One hub cannot flood the console (issue 42): a heartbeat over the size or the room count is
/// refused, counted and never stored.
extension OnTheTestSink.FleetTests {
    /// A heartbeat of `hub` listing `rooms` absent rooms, compact (about 50 bytes a room).
    static func heartbeat(_ hub: String, rooms: Int, lastError: String? = nil, interval: Int = 60) -> String {
        let list = (0..<rooms).map { #"{"muted":false,"present":false,"room":"r\#($0)"}"# }.joined(separator: ",")
        let at = Date().formatted(.iso8601)
        return #"{"at":"\#(at)","hub":"\#(hub)","interval_s":\#(interval),"groups":[],"mute_policy":"override","queue":0,"failed_1h":0,"#
            + #""outcomes_24h":{},"reminders":{"missed_24h":0,"waiting_ack":0},"uptime_s":5,"version":"1","#
            + #""last_error":\#(lastError.map { "\"\($0)\"" } ?? "null"),"rooms":[\#(list)]}"#
    }

    /// The value of an unlabelled counter in the console's `/metrics`.
    static func counter(_ name: String, of console: FleetConsole) -> Double? {
        let metrics = String(decoding: Daemon.rawRequest("GET", console.base + "/metrics").1 ?? Data(), as: UTF8.self)
        return metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    @Test func aTwoThousandRoomHeartbeatIsRefusedCountedAndNotStoredAndAnEightMegabyteOneNeverReachesTheConsole() throws {
        let database = try Postgres.freshDatabase()
        let console = try FleetConsole(name: "z-\(tag)", database: database)
        let big = "big-\(tag)", rooms = "rooms-\(tag)"
        #expect(Self.counter("herald_fleet_messages_too_large_total", of: console) == 0)

        try Broker.publish("herald/\(big)/health", Self.heartbeat(big, rooms: 2_000))
        try SoundServer.waitFor("the first refusal counted", timeout: 10) {
            Self.counter("herald_fleet_messages_too_large_total", of: console) == 1
        }
        // Under the size, over the room count.
        try Broker.publish("herald/\(rooms)/health", Self.heartbeat(rooms, rooms: 100))
        try SoundServer.waitFor("the second refusal counted", timeout: 10) {
            Self.counter("herald_fleet_messages_too_large_total", of: console) == 2
        }
        let half = Self.heartbeat(big, rooms: 1, lastError: String(repeating: "x", count: 500_000))
        try Broker.publish("herald/\(big)/health", half)
        try SoundServer.waitFor("the 500 KB heartbeat's refusal counted", timeout: 20) {
            Self.counter("herald_fleet_messages_too_large_total", of: console) == 3
        }
        // Over the console's maximum packet size (1 MiB, asked of the broker when connecting): the
        // broker drops it for the console, which never reads it into memory.
        let eight = Self.heartbeat(big, rooms: 1, lastError: String(repeating: "x", count: 8_000_000))
        try Broker.publish("herald/\(big)/health", eight)
        #expect(console.log.contains("herald/\(rooms)/health: the heartbeat lists 100 rooms, more than the 64"), "\(console.log.suffix(2000))")
        #expect(console.log.contains("herald/\(big)/health: the payload is \(half.utf8.count) bytes"))

        // The same hubs' heartbeats within bounds are read: nothing above was lost for another reason.
        let longError = String(repeating: "e", count: 5_000)
        try Broker.publish("herald/\(big)/health", Self.heartbeat(big, rooms: 3, lastError: longError))
        try SoundServer.waitFor("the good heartbeat stored", timeout: 10) { console.hubs.contains { $0["hub"] as? String == big } }
        #expect(try Postgres.query(database, "SELECT count(*) FROM hubs WHERE hub = '\(rooms)'") == "0", "the refused hub was never stored")
        #expect(try Postgres.query(database, "SELECT cardinality(rooms_absent), length(last_error), length(health::text) < 4000 FROM hubs WHERE hub = '\(big)'")
                == "3|500|t", "the good one is stored with its error cut")
        #expect(Self.counter("herald_fleet_messages_too_large_total", of: console) == 3, "the 8 MB one never reached the console")
        #expect(!console.log.contains("the payload is \(eight.utf8.count) bytes"))
    }
}

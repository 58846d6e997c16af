import Foundation
import Testing

/// Consoles do not fight over a client id (issue 42): unnamed ones take one of their own, and a
/// name set on two consoles is said once, not flapped.
extension OnTheTestSink.FleetTests {
    /// The broker as each console says it, every half second for 10 s.
    static func brokerStates(_ consoles: [FleetConsole], seconds: Int = 10) -> [[String]] {
        (0..<(seconds * 2)).map { _ in
            defer { Thread.sleep(forTimeInterval: 0.5) }
            return consoles.map { ((try? $0.get("/v1/health")) as? [String: Any])?["broker"] as? String ?? "no answer" }
        }
    }

    @Test func twoUnnamedConsolesOnOneMachineBothStayConnected() throws {
        let database = try Postgres.freshDatabase()
        let consoles = [try FleetConsole(name: "", database: database), try FleetConsole(name: "", database: database)]
        let states = Self.brokerStates(consoles)
        #expect(states.allSatisfy { $0 == ["connected", "connected"] }, "\(states)")
        let names = consoles.map { ((try? $0.get("/v1/health")) as? [String: Any])?["console"] as? String ?? "" }
        // The host's name and each one's process id.
        #expect(names[0] != names[1] && names.allSatisfy { $0.split(separator: "-").last.map { Int($0) != nil } == true }, "\(names)")
        for console in consoles {
            #expect(!console.log.contains("Session taken over") && !console.log.contains("trying again"), "\(console.log.suffix(2000))")
        }
    }

    @Test func aNameSetOnTwoConsolesIsSaidOnceAndNotFlapped() throws {
        let database = try Postgres.freshDatabase()
        let first = try FleetConsole(name: "same-\(tag)", database: database)
        let second = try FleetConsole(name: "same-\(tag)", database: database)
        let states = Self.brokerStates([first, second])
        // A few turns each, then one gives way, stays off and says why; the other stays on.
        let settled = states.last ?? []
        #expect(settled.sorted() == ["connected", "not connected"] && states.suffix(10).allSatisfy { $0 == settled }, "\(states)")
        var logs: String { first.log + second.log }
        let reconnects = logs.components(separatedBy: "trying again").count
        #expect(logs.components(separatedBy: "another client connected as herald-fleet-same-\(tag)").count - 1 == 1, "\(logs.suffix(3000))")
        Thread.sleep(forTimeInterval: 5)
        #expect(logs.components(separatedBy: "trying again").count == reconnects, "no reconnect loop: \(logs.suffix(3000))")
        let gaveWay = settled[0] == "connected" ? second : first
        let health = try #require(try gaveWay.get("/v1/health") as? [String: Any])
        #expect(health["status"] as? String == "degraded" && (health["broker_error"] as? String ?? "").contains("fleet.name 'same-\(tag)'"), "\(health)")
    }
}

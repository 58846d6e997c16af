import Foundation
import HeraldFleet
import PostgresNIO

extension FleetBench {
    /// A heartbeat every 60 s from each of 100,000 hubs: what the consoles must write, per second.
    static var nationalRate: Double { Double(nationalHubs) / 60 }
    /// Announcement events per second from the national fleet: one per hub every 500 s or so.
    static let nationalEvents = 200.0

    /// 100,000 more hubs and a second console on the same database and broker (a shared
    /// subscription): whether the two keep up with the hubs' heartbeats and events at a real
    /// fleet's rate (how far behind the last message of a window is written), the page and the
    /// API meanwhile, and how fast they write every hub's heartbeat at once (a broker restart:
    /// every hub reconnects and beats) against one console alone and the rate needed.
    func nationalFleet(console: BenchConsole, client: PostgresClient) async throws {
        let second = try BenchConsole(binary: heraldBinary, folder: folder, brokerPort: brokerPort, database: databaseURL, name: "bench-b")
        defer { second.stop() }
        try await second.waitUntilReady(log: folder + "/console-bench-b.log")
        print("  a national fleet: \(Self.nationalHubs) more hubs, two consoles (bench, bench-b) sharing the broker's messages:")
        let simulator = try await beating(Self.nationalHubs, prefix: "big-", client: client, eventsPerSecond: Self.nationalEvents)
        defer { simulator.stop() }
        try await whileBeating(simulator) {
            try await keepingUp(simulator, consoles: [console, second], client: client)
            try await timePage(console: console, named: "big-0042", runs: runs, wholeListRuns: min(runs, 5))
        }
        let two = try await burst(simulator, client: client, label: "two consoles")
        second.stop()
        let one = try await burst(simulator, client: client, label: "one console (the other stopped)")
        print(String(format: "  every hub at once: two consoles / one: %.2f; two consoles / the %.0f heartbeats/s the fleet needs: %.1f",
                     two / one, Self.nationalRate, two / Self.nationalRate))
    }

    /// Three windows of 20 s with the simulator beating at the fleet's rate: what was published,
    /// how long after the window's end its last heartbeat and event were written (the lag; 0 if
    /// already), and the consoles' CPU.
    func keepingUp(_ simulator: HubSimulator, consoles: [BenchConsole], client: PostgresClient) async throws {
        var lags: [Double] = [], beatRates: [Double] = [], eventRates: [Double] = [], cpu: [[Double]] = []
        let window = 20.0
        for _ in 0..<3 {
            let start = Date()
            let beats = simulator.heartbeatsPublished, events = simulator.eventsPublished
            let stored = try await count("SELECT count(*) FROM events", client)
            let cpuBefore = consoles.map(\.cpuSeconds)
            try await Task.sleep(for: .seconds(window))
            let ended = ContinuousClock.now
            let beaten = simulator.heartbeatsPublished - beats, said = simulator.eventsPublished - events
            let cpuAfter = consoles.map(\.cpuSeconds)
            try await waitForHeartbeats(beaten, prefix: "big-", since: start, client: client, timeout: .seconds(120), every: .milliseconds(50))
            while try await count("SELECT count(*) FROM events", client) < stored + said {
                guard ContinuousClock.now - ended < .seconds(120) else { throw BenchError("the consoles fell 120 s behind the events") }
                try await Task.sleep(for: .milliseconds(50))
            }
            lags.append((ContinuousClock.now - ended).inSeconds * 1000)
            beatRates.append(Double(beaten) / window)
            eventRates.append(Double(said) / window)
            cpu.append(zip(cpuBefore, cpuAfter).map { ($1 - $0) / window * 100 })
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        print(String(format: "  at the fleet's rate (%.0f heartbeats/s, %.0f events/s published; 3 windows of %.0f s): the last written %.0f ms after the window (median; runs %@)",
                     median(beatRates), median(eventRates), window, median(lags), lags.map { String(format: "%.0f", $0) }.joined(separator: ", ")))
        print(String(format: "  the consoles' CPU meanwhile: %@ (of one core; median per console)",
                     (0..<consoles.count).map { index in String(format: "%.0f%%", median(cpu.map { $0[index] })) }.joined(separator: ", ")))
    }

    /// Every hub's heartbeat published at once, three times: the median rate at which they are
    /// all written, first publish to last row.
    func burst(_ simulator: HubSimulator, client: PostgresClient, label: String) async throws -> Double {
        var rates: [Double] = []
        for _ in 0..<3 {
            let start = Date()
            let started = ContinuousClock.now
            try simulator.heartbeats(0..<Self.nationalHubs)
            try await waitForHeartbeats(Self.nationalHubs, prefix: "big-", since: start, client: client, timeout: .seconds(300))
            rates.append(Double(Self.nationalHubs) / (ContinuousClock.now - started).inSeconds)
        }
        let median = rates.sorted()[1]
        print(String(format: "  every hub's heartbeat at once, %@: median %.0f heartbeats/s written (runs %@)", label, median,
                     rates.map { String(format: "%.0f", $0) }.joined(separator: ", ")))
        return median
    }
}

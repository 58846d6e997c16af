import Foundation
import Testing

/// Issue 44: `herald fleet simulate` went silent after its broker restarted (it reconnected and
/// published nothing more, and consoles rightly called every simulated hub offline).
@Suite(.enabled(if: Broker.shouldRun, "needs mosquitto (scripts/test.sh)"))
final class FleetSimulatorTests {
    @Test func theSimulatorBeatsAndPublishesAgainAfterItsBrokerRestarts() throws {
        let folder = NSTemporaryDirectory() + "herald-sim-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let broker = try MQTTPrivateBroker(config: "allow_anonymous true", in: folder)
        defer { broker.stop() }
        let access = BrokerAccess(port: broker.port)
        let simulator = try SoundServer.start(HeraldHarness.binary, ["fleet", "simulate", "--broker", "mqtt://127.0.0.1:\(broker.port)",
                                                                     "--hubs", "3", "--prefix", "restart-", "--interval", "2",
                                                                     "--events-per-second", "5"])
        defer { kill(simulator.processIdentifier, SIGTERM); simulator.waitUntilExit() }
        let before = try Subscription("herald/+/events", via: access)
        try before.waitFor("events before the restart", count: 5)
        broker.stop()
        sleep(3)
        try broker.start()
        // A new subscriber: only what was published after the broker came back reaches it.
        let heartbeats = try Subscription("herald/+/health", via: access)
        let events = try Subscription("herald/+/events", via: access)
        try SoundServer.waitFor("every hub's heartbeat after the restart", timeout: 20) {
            Set(heartbeats.messages.compactMap { $0["hub"] as? String }).count == 3
        }
        try events.waitFor("events after the restart", count: 10, timeout: 20)
        #expect(simulator.isRunning)
    }
}

@testable import HeraldServer
import NIOCore
import NIOEmbedded
import Testing

/// The per-client cap's choice of what to close, with channels that stand for connections.
struct ClientConnectionsTests {
    func connected() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 7370)).wait()
        return channel
    }

    @Test func atTheCapTheConnectionIdleForLongestIsClosedNeverTheNewest() throws {
        let connections = ClientConnections(cap: { 64 })
        var admitted: [EmbeddedChannel] = []
        // Far past the cap, as a client holding hundreds of idle connections does: the newest
        // (whose request may already be on its way) must always stay.
        for _ in 0..<200 {
            let channel = try connected()
            #expect(connections.admit(channel, address: "loopback"))
            admitted.append(channel)
            #expect(channel.isActive, "the connection just admitted was closed")
        }
        #expect(connections.count("loopback") == 64)
        #expect(admitted.prefix(136).allSatisfy { !$0.isActive }, "the 136 oldest were closed")
        #expect(admitted.suffix(64).allSatisfy { $0.isActive }, "the 64 newest are open")
    }

    /// 64 admin pages hold 64 event streams: the streams have a cap of their own and never
    /// take the request slots, so a till on the same address still gets in (issue 42).
    @Test func eventStreamsHaveTheirOwnCapAndLeaveTheRequestSlotsFree() throws {
        let connections = ClientConnections(cap: { 4 })
        var streams: [EmbeddedChannel] = []
        for _ in 0..<ClientConnections.streamsPerClient {
            let channel = try connected()
            #expect(connections.admit(channel, address: "loopback"))
            connections.setBusy(true, channel, address: "loopback")
            #expect(connections.startStream(channel, address: "loopback"))
            streams.append(channel)
        }
        let oneTooMany = try connected()
        #expect(connections.admit(oneTooMany, address: "loopback"))
        connections.setBusy(true, oneTooMany, address: "loopback")
        #expect(!connections.startStream(oneTooMany, address: "loopback"), "a stream past the stream cap is refused")
        #expect(connections.streams("loopback") == ClientConnections.streamsPerClient)
        // Four request connections fit beside the streams, busy or not, and none of them closed a stream.
        for _ in 0..<3 {
            let request = try connected()
            #expect(connections.admit(request, address: "loopback"))
            connections.setBusy(true, request, address: "loopback")
        }
        #expect(streams.allSatisfy { $0.isActive })
        // A stream whose answer ended is an ordinary connection again.
        connections.setBusy(false, streams[0], address: "loopback")
        #expect(connections.streams("loopback") == ClientConnections.streamsPerClient - 1)
    }

    @Test(arguments: ["/v1/events", "/v1/events?x=1", "/v1/events/", "//v1//events", "http://127.0.0.1:7370/v1/events", "/v1/%65vents"])
    func everySpellingOfTheEventStreamIsCountedAsOne(target: String) {
        #expect(ClientConnectionCap.isEventStream(target))
    }

    @Test(arguments: ["/v1/events/x", "/v1/event", "/v1", "/", "/v1/announcements"])
    func otherPathsAreNotStreams(target: String) {
        #expect(!ClientConnectionCap.isEventStream(target))
    }

    @Test func aConnectionThatJustFinishedARequestIsKeptOverOneIdleLonger() throws {
        let connections = ClientConnections(cap: { 3 })
        let (a, b, c) = (try connected(), try connected(), try connected())
        for channel in [a, b, c] { #expect(connections.admit(channel, address: "x")) }
        connections.setBusy(true, b, address: "x")
        connections.setBusy(true, a, address: "x")
        connections.setBusy(false, a, address: "x")
        let d = try connected()
        #expect(connections.admit(d, address: "x"))
        #expect(a.isActive && b.isActive && !c.isActive && d.isActive, "c had been idle longest; b is busy")
        // All busy: the newcomer is refused and nothing else is closed.
        for channel in [a, d] { connections.setBusy(true, channel, address: "x") }
        let e = try connected()
        #expect(!connections.admit(e, address: "x"))
        #expect(a.isActive && b.isActive && d.isActive)
    }
}

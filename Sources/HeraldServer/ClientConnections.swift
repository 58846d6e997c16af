import HeraldApp
import HeraldCore
import NIOCore
import HTTPTypes
import NIOHTTPTypes
import Synchronization

/// The connections open per client address, so one process cannot hold them all
/// (`api.max_connections_per_client`): at the cap, the address's connection idle for longest (no
/// request under way) is closed to let the new one in; when all of them are busy, the new one is
/// closed at once. Event streams (`/v1/events`, one per admin page open) last as long as the page:
/// they have a small cap of their own (`streamsPerClient`) and do not count against the
/// requests' one, so open pages never shut out a till. Shared by every connection's
/// `ClientConnectionCap`.
final class ClientConnections: Sendable {
    /// Event streams one client may hold at once: a few admin pages per address.
    static let streamsPerClient = 8

    private struct Entry {
        let channel: any Channel
        var busy: Bool
        /// Its request is an event stream: counted against `streamsPerClient`, not the cap.
        var stream = false
        /// When it was admitted or last went idle, as a sequence number: the smallest idle one is
        /// closed first. (A dictionary's order is no age: taking its first idle entry closed the
        /// newest one after some churn, a request already on its way.)
        var idleSince: UInt64
    }
    private struct Open {
        var entries: [String: [ObjectIdentifier: Entry]] = [:]
        var sequence: UInt64 = 0

        mutating func next() -> UInt64 {
            sequence += 1
            return sequence
        }
    }
    private let open = Mutex(Open())
    private let cap: @Sendable () -> Int

    /// `cap`: the limit in force now (a reload applies to new connections).
    init(cap: @escaping @Sendable () -> Int) { self.cap = cap }

    /// Registers `channel`; false when it must be closed (its address is at the cap, all busy).
    func admit(_ channel: any Channel, address: String) -> Bool {
        let limit = cap()
        let evicted: (any Channel)? = open.withLock { open in
            var entries = open.entries[address] ?? [:]
            var evicted: (any Channel)?
            if entries.values.count(where: { !$0.stream }) >= limit {
                guard let idle = entries.filter({ !$0.value.busy && !$0.value.stream }).min(by: { $0.value.idleSince < $1.value.idleSince }) else { return nil }
                entries[idle.key] = nil
                evicted = idle.value.channel
            }
            entries[ObjectIdentifier(channel)] = Entry(channel: channel, busy: false, idleSince: open.next())
            open.entries[address] = entries
            return evicted ?? channel
        }
        guard let evicted else { return false }
        if evicted !== channel { evicted.close(promise: nil) }
        return true
    }

    func setBusy(_ busy: Bool, _ channel: any Channel, address: String) {
        open.withLock { open in
            let id = ObjectIdentifier(channel)
            guard var entry = open.entries[address]?[id] else { return }
            entry.busy = busy
            if !busy {
                entry.idleSince = open.next()
                entry.stream = false
            }
            open.entries[address]?[id] = entry
        }
    }

    /// Counts `channel`'s request under way as an event stream; false when its address holds
    /// `streamsPerClient` streams already (the request is then refused).
    func startStream(_ channel: any Channel, address: String) -> Bool {
        open.withLock { open in
            let id = ObjectIdentifier(channel)
            guard var entry = open.entries[address]?[id] else { return false }
            guard open.entries[address, default: [:]].values.count(where: \.stream) < Self.streamsPerClient else { return false }
            entry.stream = true
            open.entries[address]?[id] = entry
            return true
        }
    }

    func remove(_ channel: any Channel, address: String) {
        open.withLock { open in
            open.entries[address]?[ObjectIdentifier(channel)] = nil
            if open.entries[address]?.isEmpty == true { open.entries[address] = nil }
        }
    }

    /// How many connections `address` holds now, and how many of them are event streams (for tests).
    func count(_ address: String) -> Int { open.withLock { $0.entries[address]?.count ?? 0 } }
    func streams(_ address: String) -> Int { open.withLock { $0.entries[address]?.values.count(where: \.stream) ?? 0 } }

    /// The client a limit counts `address` as: all of loopback is one (a process may pick any
    /// 127.x.y.z as its source, so counting them apart would let it dodge every limit), and an
    /// IPv6 address by its /64 (one host's privacy addresses). Local processes are told apart only
    /// by tokens, or by the UNIX socket's file modes.
    static func key(for address: String) -> String {
        if address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.") { return "loopback" }
        guard address.contains(":") else { return address }
        let groups = address.split(separator: ":", omittingEmptySubsequences: false)
        return groups.prefix(4).joined(separator: ":") + "::/64"
    }
}

/// One connection's part in `ClientConnections`, and the deadline for its first request head:
/// a connection that has not sent one within `headDeadline` is closed (however slowly it
/// drips, separate from `api.idle_timeout`, which restarts with every byte).
final class ClientConnectionCap: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let connections: ClientConnections
    private let headDeadline: TimeAmount
    private var address: String?
    private var deadline: Scheduled<Void>?
    private var sawHead = false
    /// Closed at once for its address's cap: later handlers never hear it was active.
    private var refused = false
    /// Its request is an event stream: a client that closes its side has left the page, and the
    /// stream is closed at once rather than at its next write.
    private var streaming = false
    /// An event stream refused for its address's stream cap: the rest of its request is dropped.
    private var refusedStream = false

    init(connections: ClientConnections, headDeadline: TimeAmount) {
        self.connections = connections
        self.headDeadline = headDeadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        if !refused { context.fireChannelActive() }
    }

    private func start(_ context: ChannelHandlerContext) {
        guard deadline == nil, !sawHead else { return }
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: headDeadline) {
            HeraldMetrics.refused(.connections, via: "http")
            loopBound.value.close(promise: nil)
        }
        // A UNIX socket's peer has no address: its folder admits only the daemon's user.
        guard address == nil, let ip = context.channel.remoteAddress?.ipAddress else { return }
        let key = ClientConnections.key(for: ip)
        address = key
        if !connections.admit(context.channel, address: key) {
            HeraldMetrics.refused(.connections, via: "http")
            refused = true
            context.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refusedStream else { return }
        if case .head(let head) = unwrapInboundIn(data) {
            sawHead = true
            deadline?.cancel()
            deadline = nil
            if let address {
                connections.setBusy(true, context.channel, address: address)
                if head.method == .get, Self.isEventStream(head.path) {
                    guard connections.startStream(context.channel, address: address) else { return refuseStream(context) }
                    streaming = true
                }
            }
        }
        context.fireChannelRead(data)
    }

    /// `/v1/events` as the router matches it: with or without a query, a trailing or doubled
    /// slash, or in absolute form (`http://host/v1/events`). A spelling the router serves as the
    /// stream but this did not count as one would hold a request slot for good.
    static func isEventStream(_ target: String?) -> Bool {
        guard var path = target?.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) else {
            return false
        }
        if let scheme = path.range(of: "://") {
            path = path[scheme.upperBound...].firstIndex(of: "/").map { String(path[$0...]) } ?? "/"
        }
        return path.split(separator: "/").map { $0.removingPercentEncoding ?? String($0) } == ["v1", "events"]
    }

    /// Answers 429 and closes: the address holds its event streams already.
    private func refuseStream(_ context: ChannelHandlerContext) {
        refusedStream = true
        HeraldMetrics.refused(.connections, via: "http")
        let message = #"{"error":{"message":"this address holds \#(ClientConnections.streamsPerClient) event streams already (admin pages open); close one"}}"#
        var head = HTTPResponse(status: .tooManyRequests)
        head.headerFields[.contentType] = "application/json"
        head.headerFields[.contentLength] = "\(message.utf8.count)"
        head.headerFields[.connection] = "close"
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(string: message))), promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopBound.value.close(promise: nil) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if streaming, let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data), let address else { return context.write(data, promise: promise) }
        // Idle once the answer's end is written to the socket, not when it is queued: an eviction
        // before then would cut off an answer (an accepted POST would look failed).
        let written = promise ?? context.eventLoop.makePromise()
        let (connections, channel) = (connections, context.channel)
        streaming = false
        written.futureResult.whenComplete { _ in connections.setBusy(false, channel, address: address) }
        context.write(data, promise: written)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { finish(context) }

    private func finish(_ context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        if let address { connections.remove(context.channel, address: address) }
        address = nil
    }
}

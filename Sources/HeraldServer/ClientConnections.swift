import HeraldApp
import NIOCore
import NIOHTTPTypes
import Synchronization

/// The connections open per client address, so one process cannot hold them all
/// (`api.max_connections_per_client`): at the cap, the address's oldest idle connection (no
/// request under way) is closed to let the new one in; when all of them are busy, the new one is
/// closed at once. Shared by every connection's `ClientConnectionCap`.
final class ClientConnections: Sendable {
    private struct Entry {
        let channel: any Channel
        var busy: Bool
    }
    private let open = Mutex<[String: [ObjectIdentifier: Entry]]>([:])
    private let cap: @Sendable () -> Int

    /// `cap`: the limit in force now (a reload applies to new connections).
    init(cap: @escaping @Sendable () -> Int) { self.cap = cap }

    /// Registers `channel`; false when it must be closed (its address is at the cap, all busy).
    func admit(_ channel: any Channel, address: String) -> Bool {
        let limit = cap()
        let evicted: (any Channel)? = open.withLock { open in
            var entries = open[address] ?? [:]
            var evicted: (any Channel)?
            if entries.count >= limit {
                guard let idle = entries.first(where: { !$0.value.busy }) else { return nil }
                entries[idle.key] = nil
                evicted = idle.value.channel
            }
            entries[ObjectIdentifier(channel)] = Entry(channel: channel, busy: false)
            open[address] = entries
            return evicted ?? channel
        }
        guard let evicted else { return false }
        if evicted !== channel { evicted.close(promise: nil) }
        return true
    }

    func setBusy(_ busy: Bool, _ channel: any Channel, address: String) {
        open.withLock { $0[address]?[ObjectIdentifier(channel)]?.busy = busy }
    }

    func remove(_ channel: any Channel, address: String) {
        open.withLock { open in
            open[address]?[ObjectIdentifier(channel)] = nil
            if open[address]?.isEmpty == true { open[address] = nil }
        }
    }

    /// How many connections `address` holds now (for tests).
    func count(_ address: String) -> Int { open.withLock { $0[address]?.count ?? 0 } }
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

    init(connections: ClientConnections, headDeadline: TimeAmount) {
        self.connections = connections
        self.headDeadline = headDeadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard deadline == nil, !sawHead else { return }
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: headDeadline) {
            loopBound.value.close(promise: nil)
        }
        // A UNIX socket's peer has no address: its folder admits only the daemon's user.
        guard address == nil, let ip = context.channel.remoteAddress?.ipAddress else { return }
        address = ip
        if !connections.admit(context.channel, address: ip) {
            HeraldMetrics.refused(.connections, via: "http")
            context.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            sawHead = true
            deadline?.cancel()
            deadline = nil
            if let address { connections.setBusy(true, context.channel, address: address) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), let address { connections.setBusy(false, context.channel, address: address) }
        context.write(data, promise: promise)
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

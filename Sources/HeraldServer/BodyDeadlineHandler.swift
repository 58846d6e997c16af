import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Cuts off a request whose body does not arrive within `limit` of its head, however slowly it
/// drips (the idle timeout restarts with every chunk): answers 408 as JSON and closes.
///
/// A channel handler, not a deadline in the route: cancelling a read of Hummingbird's body stream
/// ends the whole connection's stream, so the route could never answer.
final class BodyDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limit: TimeAmount
    private var deadline: Scheduled<Void>?
    /// The route began its answer (a 413, say) before the body ended: leave the rest to it.
    private var answering = false

    init(limit: TimeAmount) { self.limit = limit }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            answering = false
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            deadline = context.eventLoop.scheduleTask(in: limit) {
                let (handler, context) = loopBound.value
                handler.expire(context: context)
            }
        case .end:
            deadline?.cancel()
            deadline = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head = unwrapOutboundIn(data) { answering = true }
        context.write(data, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) { deadline?.cancel() }

    private func expire(context: ChannelHandlerContext) {
        deadline = nil
        guard !answering else { return context.close(promise: nil) }
        let seconds = Double(limit.nanoseconds) / 1e9
        let body = #"{"error":{"message":"the request body did not arrive within \#(seconds.formatted()) s (api.body_timeout)"}}"#
        var fields = HTTPFields()
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.contentLength] = "\(body.utf8.count)"
        fields[.connection] = "close"
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .requestTimeout, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(string: body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}

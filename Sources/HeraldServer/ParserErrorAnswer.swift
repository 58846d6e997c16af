import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Gives the 400 that Hummingbird writes for a request NIO could not parse (a bad request line,
/// a header without a colon, a broken chunk) the same JSON body as every other error.
///
/// Hummingbird answers a parser error itself, with an empty body, below the router and its
/// middleware; this handler sits between it and the codec, sees the error go by, and fills in
/// the body of the answer that follows.
final class ParserErrorAnswer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var parserError: HTTPParserError?

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? HTTPParserError { parserError = error }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard let error = parserError, case .head(var head) = unwrapOutboundIn(data), head.status == .badRequest else {
            return context.write(data, promise: promise)
        }
        parserError = nil
        let body = #"{"error":{"message":"the request is not valid HTTP/1.1 (\#(error)); send a request line, headers each as name: value, and a body as long as its Content-Length"}}"#
        head.headerFields[.contentType] = "application/json; charset=utf-8"
        head.headerFields[.contentLength] = "\(body.utf8.count)"
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(string: body))), promise: promise)
    }
}

import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// First in the pipeline: tells the connection's clock when bytes arrive, so the header timeout
/// starts at a request's first byte.
final class ConnectionBytesHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let clock: ConnectionClock

    init(clock: ConnectionClock) { self.clock = clock }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { clock.opened() }
    }

    func channelActive(context: ChannelHandlerContext) {
        clock.opened()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        clock.bytesArrived()
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        clock.closed()
        context.fireChannelInactive()
    }
}

/// After HTTP decoding: moves the connection's clock through each request, answers
/// `Expect: 100-continue` (refusing an announced body over the limit before it is sent), and closes
/// the connection after an answer given before its request's body was read, so that an oversized or
/// endless body is never read to its end.
final class RequestProgressHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let clock: ConnectionClock
    private let maxBodySize: Int
    /// Parts of a request refused before its body: swallowed until its end.
    private var discarding = false
    /// The answer being written ends the connection.
    private var closeAfterAnswer = false

    init(clock: ConnectionClock, maxBodySize: Int) {
        self.clock = clock
        self.maxBodySize = maxBodySize
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case let .head(request):
            clock.headRead()
            if request.headerFields[.expect]?.lowercased() == "100-continue" {
                guard announcedLength(request).map({ $0 <= maxBodySize }) ?? true else { return refuseOversized(context: context) }
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            }
        case .body:
            if discarding { return }
        case .end:
            clock.requestRead()
            if discarding {
                discarding = false
                return
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case var .head(response) where response.status.kind != .informational && clock.isReadingBody:
            closeAfterAnswer = true
            response.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(response)), promise: promise)
        case .end:
            clock.answerEnded()
            guard closeAfterAnswer else { return context.write(data, promise: promise) }
            let written = context.write(data)
            written.cascade(to: promise)
            written.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
        default:
            context.write(data, promise: promise)
        }
    }

    /// `413` for a body announced over the limit with `Expect: 100-continue`; the request never
    /// reaches the router and the connection ends.
    private func refuseOversized(context: ChannelHandlerContext) {
        discarding = true
        let response = HTTPResponse(status: .contentTooLarge, headerFields: [.connection: "close", .contentLength: "0"])
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
    }

    private func announcedLength(_ request: HTTPRequest) -> Int? {
        request.headerFields[.contentLength].flatMap { Int($0) }
    }
}

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

    /// Removed from a live connection (HTTPS that agreed on HTTP/2, which times itself): the clock stops.
    func handlerRemoved(context: ChannelHandlerContext) {
        clock.closed()
    }
}

/// After HTTP decoding: moves the connection's clock through each request, marks each request with
/// its peer (``ConnectionPeer``), answers `Expect: 100-continue` (refusing an announced body over the
/// limit before it is sent), and ends the connection rather than read more than the body limit of a
/// request that was already answered, so an oversized or endless body is never read to its end.
final class RequestProgressHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let clock: ConnectionClock
    private let maxBodySize: Int
    /// ``ConnectionPeer/loopback`` or ``ConnectionPeer/remote``, from the peer's address at connection time.
    private let peer: String
    /// Parts of a request refused before its body: swallowed until its end.
    private var discarding = false
    /// The answer being written ends the connection.
    private var closeAfterAnswer = false
    /// The body length the request being read announced (nil: chunked) and how much of it has arrived.
    private var announcedLength: Int?
    private var bodyBytesRead = 0
    /// The request being read was answered before its body ended; the rest is read only up to the limit.
    private var answeredEarly = false

    init(clock: ConnectionClock, maxBodySize: Int, peerIsLoopback: Bool) {
        self.clock = clock
        self.maxBodySize = maxBodySize
        self.peer = ConnectionPeer.value(peerIsLoopback: peerIsLoopback)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case var .head(request):
            clock.headRead()
            announcedLength = request.headerFields[.contentLength].flatMap { Int($0) }
            bodyBytesRead = 0
            answeredEarly = false
            if request.headerFields[.expect]?.lowercased() == "100-continue" {
                guard announcedLength.map({ $0 <= maxBodySize }) ?? true else { return refuseOversized(context: context) }
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            }
            request.headerFields[ConnectionPeer.field] = peer
            return context.fireChannelRead(wrapInboundOut(.head(request)))
        case let .body(buffer):
            if discarding { return }
            bodyBytesRead += buffer.readableBytes
            if answeredEarly, bodyBytesRead > maxBodySize { return context.close(promise: nil) }
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
            if (announcedLength ?? 0) > maxBodySize || bodyBytesRead > maxBodySize {
                closeAfterAnswer = true
                response.headerFields[.connection] = "close"
            } else {
                answeredEarly = true
            }
            context.write(wrapOutboundOut(.head(response)), promise: promise)
        case .end:
            clock.answerEnded()
            guard closeAfterAnswer else { return context.write(data, promise: promise) }
            closeAfterAnswer = false
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
}

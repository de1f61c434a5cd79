import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOHTTPTypes
import NIOSSL
import NIOTLS

/// The HTTPS child channel: TLS, then HTTP/2 or HTTP/1.1 as ALPN decides, with ``ConnectionLimits``
/// on every connection. A ``ConnectionBytesHandler`` ahead of TLS times the handshake and the first
/// request's headers together (the header timeout), so a client that stalls mid-handshake is cut like
/// any slow request. HTTP/1.1 then runs exactly as ``GuardedHTTP1Channel``; HTTP/2 hands the
/// connection to Hummingbird's `HTTP2Channel`, whose own idle timeouts take over (the connection's
/// idle timeout while no stream is open), and a ``StreamGuardHandler`` on every stream marks its
/// request with its peer (``ConnectionPeer``) and gives it the header and body timeouts together.
///
/// Hummingbird's `HTTP2UpgradeChannel` builds its HTTP/1.1 handlers once per server; the connection
/// guard needs handlers made for each connection around one clock, hence this channel.
struct GuardedHTTPSChannel: ServerChildChannel, HTTPChannelHandler {
    enum Negotiated: Sendable {
        case http1(GuardedHTTP1Channel.Value)
        case http2(HTTP2Channel, HTTP2Channel.Value)
    }

    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    let limits: ConnectionLimits
    let maxBodySize: Int
    let keySet: KeySetShortcut
    /// Built once per listener, with ALPN offering `h2` and `http/1.1`.
    let tlsContext: NIOSSLContext

    /// ALPN protocol names, preferred first.
    static let applicationProtocols = ["h2", "http/1.1"]

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let eventLoop = channel.eventLoop
        return eventLoop.flatSubmit {
            let clock = ConnectionClock(limits: limits, channel: channel)
            let bytes = ConnectionBytesHandler(clock: clock)
            let negotiation = NIOTypedApplicationProtocolNegotiationHandler<Negotiated> { result, channel in
                switch result {
                case .negotiated("h2"):
                    return channel.pipeline.syncOperations.removeHandler(bytes).flatMap {
                        let http2 = makeHTTP2Channel(peerIsLoopback: channel.remoteAddress?.isLoopback ?? false)
                        return http2.setup(channel: channel, logger: logger).map { .http2(http2, $0) }
                    }
                case .negotiated("http/1.1"), .fallback:
                    return GuardedHTTP1Channel.addHTTP1(to: channel, clock: clock, responder: responder, maxBodySize: maxBodySize, keySet: keySet,
                                                         logger: logger)
                        .map { .http1($0) }
                case let .negotiated(other):
                    return channel.close().flatMap { channel.eventLoop.makeFailedFuture(UnexpectedApplicationProtocol(name: other)) }
                }
            }
            do {
                try channel.pipeline.syncOperations.addHandlers(bytes, NIOSSLServerHandler(context: tlsContext), negotiation)
            } catch {
                return eventLoop.makeFailedFuture(error)
            }
            return eventLoop.makeSucceededFuture(Value(negotiated: negotiation.protocolNegotiationResult, channel: channel))
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case let .http1(connection):
                await handleHTTP(asyncChannel: connection, logger: logger)
            case let .http2(http2, connection):
                await http2.handle(value: connection, logger: logger)
            }
        } catch {
            logger.debug("TLS connection ended before a protocol was agreed: \(error)")
        }
    }

    private func makeHTTP2Channel(peerIsLoopback: Bool) -> HTTP2Channel {
        let requestTimeout = TimeAmount.seconds(Int64(limits.headerTimeout + limits.bodyTimeout))
        let streams = HTTP1Channel.Configuration(
            additionalChannelHandlers: [StreamGuardHandler(peerIsLoopback: peerIsLoopback, requestTimeout: requestTimeout)])
        return HTTP2Channel(responder: responder, configuration: .init(idleTimeout: .seconds(limits.idleTimeout), streamConfiguration: streams))
    }
}

/// ALPN agreed on a protocol this server does not offer.
struct UnexpectedApplicationProtocol: Error {
    let name: String
}

/// On each HTTP/2 stream: marks the request with its connection's peer (``ConnectionPeer``; any
/// such header the client sent is replaced), and closes the stream when its request has not been
/// read to its end within `requestTimeout` of the stream opening (the header and body timeouts
/// together), however slowly its bytes keep coming.
final class StreamGuardHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let peer: String
    private let requestTimeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(peerIsLoopback: Bool, requestTimeout: TimeAmount) {
        peer = ConnectionPeer.value(peerIsLoopback: peerIsLoopback)
        self.requestTimeout = requestTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = channel.eventLoop.scheduleTask(in: requestTimeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case var .head(request):
            request.headerFields[ConnectionPeer.field] = peer
            context.fireChannelRead(wrapInboundOut(.head(request)))
        case .end:
            deadline?.cancel()
            deadline = nil
            context.fireChannelRead(data)
        case .body:
            context.fireChannelRead(data)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTPS (HTTP/2 and HTTP/1.1 by ALPN) with ``ConnectionLimits`` on every connection.
    static func guardedHTTPS(limits: ConnectionLimits, maxBodySize: Int, tlsContext: NIOSSLContext,
                             keySet: KeySetShortcut) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            GuardedHTTPSChannel(responder: responder, limits: limits, maxBodySize: maxBodySize, keySet: keySet, tlsContext: tlsContext)
        }
    }
}

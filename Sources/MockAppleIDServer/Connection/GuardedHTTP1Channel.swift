import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Hummingbird's HTTP/1.1 child channel with ``ConnectionLimits`` enforced on every connection:
/// a ``ConnectionBytesHandler`` ahead of the HTTP decoder and a ``RequestProgressHandler`` after
/// it, sharing one ``ConnectionClock``, and the ``KeySetShortcutHandler`` after that.
struct GuardedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let limits: ConnectionLimits
    let maxBodySize: Int
    let keySet: KeySetShortcut

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let eventLoop = channel.eventLoop
        return eventLoop.flatSubmit {
            let clock = ConnectionClock(limits: limits, channel: channel)
            do { try channel.pipeline.syncOperations.addHandler(ConnectionBytesHandler(clock: clock)) } catch {
                return eventLoop.makeFailedFuture(error)
            }
            return Self.addHTTP1(to: channel, clock: clock, responder: responder, maxBodySize: maxBodySize, keySet: keySet, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }

    /// Adds HTTP/1.1 decoding with a ``RequestProgressHandler`` on `clock` and a ``KeySetShortcutHandler``
    /// to a channel whose ``ConnectionBytesHandler`` is already in place (first, or ahead of TLS). On
    /// the channel's event loop.
    static func addHTTP1(to channel: any Channel, clock: ConnectionClock, responder: @escaping HTTPChannelHandler.Responder,
                         maxBodySize: Int, keySet: KeySetShortcut, logger: Logger) -> EventLoopFuture<Value> {
        let peerIsLoopback = channel.remoteAddress?.isLoopback ?? false
        let handlers = NIOLoopBound([
            RequestProgressHandler(clock: clock, maxBodySize: maxBodySize, peerIsLoopback: peerIsLoopback),
            keySet.makeHandler(),
        ] as [any RemovableChannelHandler], eventLoop: channel.eventLoop)
        let http1 = HTTP1Channel(responder: responder, configuration: .init(additionalChannelHandlers: handlers.value))
        return http1.setup(channel: channel, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with ``ConnectionLimits`` on every connection, answering plain key-set fetches through `keySet`.
    static func guardedHTTP1(limits: ConnectionLimits, maxBodySize: Int, keySet: KeySetShortcut) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            GuardedHTTP1Channel(responder: responder, limits: limits, maxBodySize: maxBodySize, keySet: keySet)
        }
    }
}

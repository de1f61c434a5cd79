import Logging
import MockAppleID
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The private relay's SMTP listener on SwiftNIO: one ``SMTPSession`` per connection, lines bounded
/// by ``SMTPLineDecoder``, an idle timeout per connection and a cap on connections at once.
/// ``bind(provider:configuration:logger:)`` listens at once (so the port is known); ``run()``
/// serves until graceful shutdown (or cancellation), then closes every connection.
final class SMTPListener: Service {
    /// A connection, with the switch its line decoder reads a message by.
    typealias Connection = (channel: NIOAsyncChannel<SMTPLine, ByteBuffer>, dataMode: SMTPDataMode)

    /// Where the listener is bound.
    let port: Int
    private let server: NIOAsyncChannel<Connection, Never>
    private let provider: AppleIDProvider
    private let limits: SMTPSession.Limits
    private let maxConnections: Int
    private let logger: Logger
    private let open = Atomic<Int>(0)

    /// The longest line read (data lines included); longer ones are refused without being buffered.
    static let lineLimit = 8192

    private init(port: Int, server: NIOAsyncChannel<Connection, Never>, provider: AppleIDProvider, limits: SMTPSession.Limits,
                 maxConnections: Int, logger: Logger) {
        self.port = port
        self.server = server
        self.provider = provider
        self.limits = limits
        self.maxConnections = maxConnections
        self.logger = logger
    }

    /// Binds `host:port` (0 picks a free port).
    static func bind(provider: AppleIDProvider, host: String, port: Int, idleTimeout: TimeAmount, maxConnections: Int,
                     logger: Logger) async throws -> SMTPListener {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 128)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let dataMode = SMTPDataMode()
                    try channel.pipeline.syncOperations.addHandlers([
                        IdleStateHandler(readTimeout: idleTimeout),
                        SMTPIdleTimeoutHandler(),
                        ByteToMessageHandler(SMTPLineDecoder(limit: lineLimit, dataMode: dataMode)),
                    ])
                    return (channel: try NIOAsyncChannel<SMTPLine, ByteBuffer>(wrappingChannelSynchronously: channel), dataMode: dataMode)
                }
            }
        let limits = SMTPSession.Limits(messageSize: provider.settings.relay.maxMessageSize)
        return SMTPListener(port: server.channel.localAddress?.port ?? port, server: server, provider: provider, limits: limits,
                            maxConnections: maxConnections, logger: logger)
    }

    /// Serves connections until graceful shutdown or cancellation.
    func run() async {
        await cancelWhenGracefulShutdown { await self.acceptConnections() }
    }

    private func acceptConnections() async {
        do {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { inbound in
                    for try await connection in inbound {
                        group.addTask { await self.serve(connection) }
                    }
                }
            }
        } catch {
            if !Task.isCancelled { logger.error("SMTP listener stopped: \(error)") }
        }
    }

    private func serve(_ connection: Connection) async {
        let count = open.add(1, ordering: .relaxed).newValue
        defer { open.subtract(1, ordering: .relaxed) }
        try? await connection.channel.executeThenClose { inbound, outbound in
            guard count <= maxConnections else {
                try await outbound.write(ByteBuffer(string: "421 4.7.0 Too many connections, try again later\r\n"))
                return
            }
            var session = SMTPSession(relay: provider, limits: limits)
            try await outbound.write(ByteBuffer(string: session.greeting + "\r\n"))
            var taken = 0
            for try await line in inbound {
                taken += 1
                var response: SMTPSession.Response
                // A message the relay took is acknowledged only once it is saved (a state file or a
                // shared store, where the line is handled while this server holds the world).
                do throws(StateStoreError) {
                    if session.isMessageText(line) {
                        response = session.handle(line)
                    } else {
                        // A message is read and decoded on the thread pool, not on the event loop Apple's endpoints
                        // share (decoded in line if the pool is gone).
                        if let ended = session.messageEnded(by: line) {
                            session.prepare(try? await offEventLoop {
                                PreparedRelayMail(RelaySubmission(envelopeFrom: ended.from, recipients: ended.to,
                                                                  data: String(decoding: ended.data, as: UTF8.self)))
                            })
                        }
                        response = try await provider.perform(.request) { session.handle(line) }.get()
                        if session.readsMessage { connection.dataMode.begin(after: taken) }
                    }
                } catch {
                    // The store's insides (its address, the driver's words) go to the log, not to the sender.
                    logger.error("SMTP relay: a change was not saved, the connection is closed: \(error.message)")
                    response = SMTPSession.Response(lines: ["451 4.3.0 Requested action aborted: local error in processing"], close: true)
                }
                if !response.lines.isEmpty {
                    try await outbound.write(ByteBuffer(string: response.lines.map { $0 + "\r\n" }.joined()))
                }
                if response.close { return }
            }
        }
    }
}

/// Ends a connection that sent nothing for the idle timeout, with the `421` RFC 5321 asks for.
final class SMTPIdleTimeoutHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is IdleStateHandler.IdleStateEvent else { return context.fireUserInboundEventTriggered(event) }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "421 4.4.2 Idle for too long, closing\r\n")), promise: nil)
        context.close(promise: nil)
    }
}

import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

// `bare-responder PORT FILE`: answers every HTTP/1.1 request with FILE's bytes as application/json,
// keeping connections alive; prints `listening on PORT` once bound. The floor a benchmark compares
// mock-appleid's /auth/keys with: the same bytes, no routing, no work.

final class FixedResponder: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let body: ByteBuffer
    let head: HTTPResponseHead

    init(body: ByteBuffer) {
        self.body = body
        self.head = HTTPResponseHead(version: .http1_1, status: .ok, headers: [
            "Content-Type": "application/json;charset=UTF-8", "Content-Length": String(body.readableBytes),
        ])
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int(arguments[1]), let bytes = FileManager.default.contents(atPath: arguments[2]) else {
    FileHandle.standardError.write(Data("usage: bare-responder PORT FILE\n".utf8))
    exit(2)
}
let responder = FixedResponder(body: ByteBuffer(bytes: bytes))
let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelInitializer { channel in
        channel.pipeline.configureHTTPServerPipeline().flatMap { channel.pipeline.addHandler(responder) }
    }
    .bind(host: "127.0.0.1", port: port).get()
FileHandle.standardOutput.write(Data("listening on \(channel.localAddress?.port ?? port)\n".utf8))
try await channel.closeFuture.get()

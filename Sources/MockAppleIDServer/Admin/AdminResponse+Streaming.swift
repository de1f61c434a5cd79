import Hummingbird
import NIOCore
import ServiceLifecycle

extension AdminResponse {
    /// A streamed answer (the event stream, an audit's progress): writes `frames` to `writer` as they come, until
    /// they end or the server shuts down gracefully, and yields `keepAlive` into `feed` (the continuation of
    /// `frames`) every `interval` meanwhile, so that neither side's read timeout ends a quiet stream. On a graceful
    /// shutdown `onShutdown` runs (it may yield a last frame), then `feed` is finished.
    static func writeLive(_ frames: AsyncStream<ByteBuffer>, feed: AsyncStream<ByteBuffer>.Continuation, keepAlive: ByteBuffer,
                          every interval: Duration, to writer: inout any ResponseBodyWriter,
                          onShutdown: @escaping @Sendable () -> Void = {}) async throws {
        let beat = Task {
            while (try? await Task.sleep(for: interval)) != nil { feed.yield(keepAlive) }
        }
        defer { beat.cancel() }
        try await withGracefulShutdownHandler {
            for await frame in frames { try await writer.write(frame) }
        } onGracefulShutdown: {
            onShutdown()
            feed.finish()
        }
        try await writer.finish(nil)
    }
}

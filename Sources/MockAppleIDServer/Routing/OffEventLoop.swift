import NIOPosix

/// Runs `work` on SwiftNIO's thread pool (one thread per core): what can take long (generating an RSA key,
/// rendering a button image) must not stall the event loop a handler runs on, and every connection it serves.
func offEventLoop<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await NIOThreadPool.singleton.runIfActive(work)
}

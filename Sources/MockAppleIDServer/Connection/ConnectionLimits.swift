import NIOCore

/// How long a client may take and how much it may send on one HTTP connection. Every field has a
/// working default; `serve` has a flag for each.
public struct ConnectionLimits: Sendable, Equatable {
    /// Seconds a keep-alive connection may wait for its next request before it is closed.
    public var idleTimeout: Int = 60
    /// Seconds from a request's first byte to the end of its headers.
    public var headerTimeout: Int = 10
    /// Seconds from the end of a request's headers to the end of its body.
    public var bodyTimeout: Int = 30
    /// Connections served at once on each listener (HTTP and HTTPS count apart); further clients wait
    /// in the listen backlog until one closes.
    public var maxConnections: Int = 512
    /// Seconds graceful shutdown may take before the remaining connections are cut.
    public var shutdownTimeout: Int = 5

    public init() {}

    /// The range every timeout must fall in (seconds).
    public static let timeoutRange = 1...3600
    /// The range ``maxConnections`` must fall in.
    public static let connectionRange = 1...100_000
}

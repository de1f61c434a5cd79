import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's core context plus the client's address, which
/// the admin API's loopback rule reads.
public struct ServerRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connected client; nil for requests that did not come over a socket (in-memory tests).
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = CoreRequestContextStorage(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}

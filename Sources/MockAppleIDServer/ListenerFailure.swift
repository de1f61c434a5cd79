import NIOCore
import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listener that could not bind its address: which listener, which address and why, in words (the
/// socket call's own error names neither the listener nor the port).
public struct ListenerFailure: Error, CustomStringConvertible {
    /// "HTTP", "HTTPS" or "SMTP relay".
    public let listener: String
    public let host: String
    public let port: Int
    /// The system's error number (EADDRINUSE when another process has the port).
    public let errno: CInt

    public var description: String {
        let why: String
        switch errno {
        case EADDRINUSE: why = "the port is in use (another process, or another of this server's listeners, has it)"
        case EADDRNOTAVAIL: why = "no interface of this machine has that address"
        case EACCES: why = "permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE)"
        default: why = "error \(errno)"
        }
        return "cannot listen for \(listener) on \(host):\(port): \(why)"
    }

    /// Runs `body` (a listener's binding), turning a socket error into a ListenerFailure.
    static func naming<Result>(_ listener: String, host: String, port: Int, _ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch let error as IOError {
            throw ListenerFailure(listener: listener, host: host, port: port, errno: error.errnoCode)
        }
    }
}

/// A listener run as a service, whose failure to bind is a ``ListenerFailure``.
struct NamedListener<Listener: Service>: Service {
    let listener: Listener
    let name: String
    let host: String
    let port: Int

    func run() async throws {
        try await ListenerFailure.naming(name, host: host, port: port) { try await listener.run() }
    }
}

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
    /// "HTTP", "HTTPS" or "the SMTP relay".
    public let listener: String
    public let host: String
    public let port: Int
    /// The system's error number (EADDRINUSE when another process has the port).
    public let errno: CInt

    /// The errors only binding gives, each in words.
    static let bindErrors: [CInt: String] = [
        EADDRINUSE: "the port is in use (another process, or another of this server's listeners, has it)",
        EADDRNOTAVAIL: "no interface of this machine has that address",
        EACCES: "permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE)",
    ]

    public var description: String {
        "cannot listen for \(listener) on \(host):\(port): \(Self.bindErrors[errno] ?? "error \(errno)")"
    }

    /// Runs `body` (a listener's binding, or its whole run), turning an error only binding gives into a
    /// ListenerFailure; any other error is rethrown as it is.
    static func naming<Result>(_ listener: String, host: String, port: Int, _ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch let error as IOError where bindErrors[error.errnoCode] != nil {
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

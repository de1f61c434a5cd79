import Logging

/// How a server listens and presents itself. Every field has a working default.
public struct ServerConfiguration: Sendable {
    /// Interface to bind; loopback by default.
    public var host: String = "127.0.0.1"
    /// Port to bind; 0 picks a free one (see ``RunningServer/port``).
    public var port: Int = 8080
    /// The base URL endpoints are advertised at (discovery document). nil derives it from each
    /// request's Host header, so it is right behind port 0 and proxies alike. A path is allowed
    /// (`https://idp.test/tenant-a`), so a later tenant prefix or HTTPS front fits in.
    public var publicBaseURL: String?
    /// Largest request body accepted; larger ones get Apple's `invalid_request`.
    public var maxBodySize: Int = 64 * 1024
    public var logLevel: Logger.Level = .info

    public init(host: String = "127.0.0.1", port: Int = 8080, publicBaseURL: String? = nil, logLevel: Logger.Level = .info) {
        self.host = host
        self.port = port
        self.publicBaseURL = publicBaseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.logLevel = logLevel
    }
}

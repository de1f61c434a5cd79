import Foundation
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
    /// A path every advertised URL carries after the base URL: a tenant's `/t/<name>` (set by the
    /// server for each tenant; empty for its own world).
    var pathPrefix = ""
    /// Largest request body accepted; larger ones get Apple's `invalid_request`.
    public var maxBodySize: Int = 64 * 1024
    public var logLevel: Logger.Level = .info
    /// Log every Apple-endpoint request at `info` (failures at `notice`); otherwise they are logged at `debug`.
    public var accessLog = false
    /// The Bearer token the admin API requires of every client; nil (the default) admits loopback clients only.
    public var adminToken: String?
    /// Host names a tokenless admin request may name besides loopback ones: the bound host, the
    /// public base URL's, and Apple's when HTTPS is on (the machine maps them to itself then).
    var adminHostNames: Set<String> {
        var names: Set<String> = [host.lowercased(), host.contains(":" as Character) ? "[\(host.lowercased())]" : host.lowercased()]
        if let publicBaseURL, let publicHost = URLComponents(string: publicBaseURL)?.wireHost?.lowercased() { names.insert(publicHost) }
        if https != nil { names.formUnion([AppleHostNames.identity, AppleHostNames.cdn]) }
        return names
    }
    /// An HTTPS listener beside the HTTP one; nil (the default) runs none.
    public var https: HTTPSConfiguration?
    /// Timeouts and the connection cap of the HTTP listener.
    public var connections = ConnectionLimits()
    /// Port of the private relay's SMTP listener (on ``host``); nil runs none, 0 picks a free one
    /// (see ``RunningServer/smtpPort``).
    public var smtpPort: Int?
    /// An SMTP server every message the relay takes is forwarded to, addressed to the persona's own address.
    public var relayForward: RelayUpstream?
    /// Seconds an SMTP connection may stay silent before the relay closes it.
    public var smtpIdleTimeout: Int = 300
    /// SMTP connections served at once; more are told `421` and closed.
    public var smtpMaxConnections: Int = 64
    /// Routes the composition root adds to the admin API, on the server's and each tenant's (``AdminStreamingRoute``):
    /// `serve` adds the audit's `POST /__admin/audit`.
    public var adminRoutes: [AdminStreamingRoute] = []

    public init(host: String = "127.0.0.1", port: Int = 8080, publicBaseURL: String? = nil, logLevel: Logger.Level = .info) {
        self.host = host
        self.port = port
        self.publicBaseURL = publicBaseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.logLevel = logLevel
    }
}

/// An upstream SMTP server, `host:port`.
public struct RelayUpstream: Sendable, Equatable {
    public let host: String
    public let port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` (`[::1]:25` for IPv6); nil when it is not that.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, host.utf8.count <= 253 else { return nil }
        self.init(host: host, port: port)
    }
}

import Synchronization

/// Where a running server listens, in a form a test harness reads (`/__admin/health`, `serve --ready-file`):
/// each listener's URL, host and port.
public struct ServerListeners: Sendable, Encodable, Equatable {
    /// One listener.
    public struct Listener: Sendable, Encodable, Equatable {
        /// `http://127.0.0.1:8080`, `https://localhost:8443`, `smtp://127.0.0.1:2525`.
        public let url: String
        public let host: String
        public let port: Int
    }

    public let http: Listener
    /// The HTTPS listener, when it runs (its URL names `localhost`, which its certificate also names).
    public let https: Listener?
    /// The private relay's SMTP listener, when it runs.
    public let smtp: Listener?

    init(_ running: RunningServer) {
        http = Listener(url: running.baseURL, host: running.host, port: running.port)
        https = running.httpsPort.map { Listener(url: running.httpsBaseURL(host: "localhost") ?? "", host: running.host, port: $0) }
        let bracketed = running.host.contains(":" as Character) ? "[\(running.host)]" : running.host
        smtp = running.smtpPort.map { Listener(url: "smtp://\(bracketed):\($0)", host: running.host, port: $0) }
    }

    private init(http: Listener, https: Listener?, smtp: Listener?) {
        self.http = http
        self.https = https
        self.smtp = smtp
    }

    /// The listeners as a tenant's world is reached through them: its path after the HTTP and HTTPS URLs;
    /// no SMTP (the relay delivers to the server's own world only).
    func under(_ pathPrefix: String) -> ServerListeners {
        guard !pathPrefix.isEmpty else { return self }
        func prefixed(_ listener: Listener) -> Listener { Listener(url: listener.url + pathPrefix, host: listener.host, port: listener.port) }
        return ServerListeners(http: prefixed(http), https: https.map(prefixed), smtp: nil)
    }
}

/// The listeners of a running server, known once every one is bound; shared by the server's own
/// routes and its tenants'.
final class BoundListeners: Sendable {
    private let bound = Mutex<ServerListeners?>(nil)

    var current: ServerListeners? { bound.withLock { $0 } }

    func set(_ listeners: ServerListeners) { bound.withLock { $0 = listeners } }
}

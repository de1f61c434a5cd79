import Foundation
import MockAppleID
import NIOSSL
import PostgresNIO

/// A `postgres://user:password@host:port/database` address, read into a connection configuration.
struct PostgresAddress: Sendable {
    let configuration: PostgresConnection.Configuration
    /// The address without its password, for messages.
    let name: String

    /// How long a statement, a lock wait or a transaction left open may last before the server ends it
    /// (so a server that stops while holding the world does not block the others), and how soon the
    /// server notices a connection whose host vanished (so its locks, the sender's among them, are let go).
    static let serverTimeouts: [(String, String)] = [
        ("statement_timeout", "10s"), ("lock_timeout", "10s"), ("idle_in_transaction_session_timeout", "10s"),
        ("tcp_keepalives_idle", "10"), ("tcp_keepalives_interval", "5"), ("tcp_keepalives_count", "3"),
    ]

    /// Reads `text`; `sslmode` may be `disable` (the default), `require` (TLS without checking the
    /// server's certificate, as libpq's `require`) or `verify-full`.
    init(_ text: String) throws(StateStoreError) {
        guard text.utf8.count <= 2_048, let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme ?? ""),
              let host = url.wireHost, !host.isEmpty else {
            throw StateStoreError("the database URL must look like postgres://user:password@host:port/database")
        }
        let port = url.port ?? 5432
        guard (1...65_535).contains(port) else { throw StateStoreError("the database URL's port is out of range: \(port)") }
        var tls = PostgresConnection.Configuration.TLS.disable
        for item in url.queryItems ?? [] {
            switch (item.name, item.value ?? "") {
            case ("sslmode", "disable"): tls = .disable
            case ("sslmode", "require"), ("sslmode", "verify-full"):
                var configuration = TLSConfiguration.makeClientConfiguration()
                if item.value == "require" { configuration.certificateVerification = .none }
                do { tls = .require(try NIOSSLContext(configuration: configuration)) } catch {
                    throw StateStoreError("the database URL asks for TLS, which cannot be set up: \(error)")
                }
            default: throw StateStoreError("the database URL has a parameter this server does not know: \(item.name.prefix(40))")
            }
        }
        let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        // An IPv6 address is bracketed in the URL, bare to connect to.
        let address = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var configuration = PostgresConnection.Configuration(
            host: address, port: port, username: url.user ?? "postgres", password: url.password,
            database: database.isEmpty ? nil : database, tls: tls)
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.additionalStartupParameters = Self.serverTimeouts
        self.configuration = configuration
        self.name = "postgres://\(url.user.map { "\($0)@" } ?? "")\(host):\(port)/\(database)"
    }
}

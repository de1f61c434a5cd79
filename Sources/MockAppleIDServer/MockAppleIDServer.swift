import Hummingbird
import Logging
import MockAppleID
import ServiceLifecycle

/// The HTTP server: Apple's endpoints and the admin API over one ``AppleIDProvider``.
///
/// ```swift
/// let provider = try AppleIDProvider(scenario: try BuiltInScenario.load())
/// let server = MockAppleIDServer(provider: provider, configuration: ServerConfiguration(port: 0))
/// try await server.run { running in print(running.baseURL) }
/// ```
public struct MockAppleIDServer: Sendable {
    public let provider: AppleIDProvider
    public let configuration: ServerConfiguration

    public init(provider: AppleIDProvider, configuration: ServerConfiguration = ServerConfiguration()) {
        self.provider = provider
        self.configuration = configuration
    }

    /// The router with every route, for in-memory tests (`HummingbirdTesting`'s `.router`).
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        AppleRoutes(provider: provider, configuration: configuration).register(on: router)
        AdminRoutes(provider: provider, configuration: configuration).register(on: router)
        return router
    }

    /// A Hummingbird application listening as configured; `onRunning` is told the bound address.
    public func makeApplication(
        logger: Logger? = nil, onRunning: @escaping @Sendable (RunningServer) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        var log = logger ?? Logger(label: "mock-appleid")
        log.logLevel = configuration.logLevel
        let host = configuration.host
        let publicBaseURL = configuration.publicBaseURL
        return Application(
            router: makeRouter(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: configuration.port)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                await onRunning(RunningServer(host: host, port: port, publicBaseURL: publicBaseURL))
            },
            logger: log)
    }

    /// A service group running the server: `run()` it, and end it with `triggerGracefulShutdown()`
    /// (in-flight requests finish first). With `handlesSignals`, SIGINT and SIGTERM end it too.
    public func makeServiceGroup(
        logger: Logger? = nil, handlesSignals: Bool = false,
        onRunning: @escaping @Sendable (RunningServer) async -> Void = { _ in }
    ) -> ServiceGroup {
        var log = logger ?? Logger(label: "mock-appleid")
        log.logLevel = configuration.logLevel
        return ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [makeApplication(logger: log, onRunning: onRunning)],
            gracefulShutdownSignals: handlesSignals ? [.sigterm, .sigint] : [],
            logger: log))
    }
}

/// Where a started server listens.
public struct RunningServer: Sendable {
    public let host: String
    /// The bound port (the chosen one when the configuration said 0).
    public let port: Int
    let publicBaseURL: String?

    /// `http://host:port`, or the configured public base URL.
    public var baseURL: String {
        if let publicBaseURL { return publicBaseURL }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "http://\(bracketed):\(port)"
    }
}

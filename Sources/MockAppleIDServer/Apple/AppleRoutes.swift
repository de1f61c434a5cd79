import Hummingbird
import Logging
import MockAppleID
import Synchronization

/// Apple's endpoints over one provider. Each endpoint decodes the request into core values, asks the
/// provider (which journals the request), and encodes the answer as Apple would; one file per endpoint.
struct AppleRoutes: Sendable {
    let provider: AppleIDProvider
    let configuration: ServerConfiguration
    /// `http` or `https`: how the listener these routes answer on is reached.
    let scheme: String
    /// Discovery documents by base URL, built on first use (a handful at most).
    let discoveryCache = DiscoveryCache()

    func register(on router: RecordingRouter) {
        registerAuthorize(on: router)
        registerToken(on: router)
        registerRevoke(on: router)
        registerUserMigration(on: router)
        registerMetadata(on: router)
    }

    /// The base URL endpoints are advertised at: configured, or the listener's scheme and the
    /// request's Host header (`:authority` over HTTP/2); then a tenant's path prefix.
    func baseURL(for request: Request) -> String {
        if let configured = configuration.publicBaseURL { return configured + configuration.pathPrefix }
        let host = request.head.authority ?? "\(configuration.host):\(configuration.port)"
        return "\(scheme)://\(host)\(configuration.pathPrefix)"
    }

    /// Reads a request's input; a failure the provider never saw is journaled here, then thrown.
    func reading<T>(_ endpoint: AppleEndpoint, _ request: Request, clientID: String? = nil,
                    _ read: () async throws(AppleError) -> T) async throws(AppleError) -> T {
        do { return try await read() } catch {
            provider.recordRequest(endpoint, origin: request.origin, clientID: clientID, status: 400, error: error, reason: error.reason)
            throw error
        }
    }

    /// Applies a queued transport fault for `target`: a delay, or a 5xx thrown as the response.
    func applyTransportFault(_ target: Fault.Target, endpoint: AppleEndpoint, _ request: Request, clientID: String?) async throws {
        guard let fault = provider.takeTransportFault(target, clientID: clientID) else { return }
        switch fault.kind {
        case let .tokenDelay(seconds), let .keysDelay(seconds):
            if let deferred = DeferredDelay.current { deferred.add(.seconds(seconds)) } else { try await Task.sleep(for: .seconds(seconds)) }
        case let .tokenServerError(status), let .keysUnavailable(status):
            provider.recordRequest(endpoint, origin: request.origin, clientID: clientID, status: status, reason: "fault applied: \(fault)")
            throw BareStatusError(status: .init(code: status))
        case .tokenError, .idToken:
            return
        }
    }
}

/// A small cache of serialised discovery documents keyed by base URL.
final class DiscoveryCache: Sendable {
    private let documents = Mutex<[String: String]>([:])
    private let limit = 32

    func document(baseURL: String, build: () -> String) -> String {
        if let cached = documents.withLock({ $0[baseURL] }) { return cached }
        let document = build()
        documents.withLock { documents in
            if documents.count >= limit { documents.removeAll() }
            documents[baseURL] = document
        }
        return document
    }
}

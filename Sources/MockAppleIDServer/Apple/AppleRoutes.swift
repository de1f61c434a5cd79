import Hummingbird
import MockAppleID
import Synchronization

/// Apple's endpoints over one provider, one file each. Each route reads the request into core values,
/// asks the provider and encodes the answer as Apple would; ``AppleEndpointMiddleware``, around every
/// one of them, journals the request and answers its failures in Apple's shape.
struct AppleRoutes: Sendable {
    let provider: AppleIDProvider
    let configuration: ServerConfiguration
    /// `http` or `https`: how the listener these routes answer on is reached.
    let scheme: String
    /// The `/auth/keys` bodies, shared with the listeners' shortcut.
    let keySetBodies: KeySetBodies
    /// Discovery documents by base URL, built on first use (a handful at most).
    let discoveryCache = DiscoveryCache()

    func register(on router: RecordingRouter, saving: SavedBeforeAnswering) {
        let apple = router.group().add(middleware: AppleEndpointMiddleware(provider: provider, saving: saving))
        registerAuthorize(on: apple)
        registerToken(on: apple)
        registerRevoke(on: apple)
        registerUserMigration(on: apple)
        registerMetadata(on: apple)
    }

    /// The base URL endpoints are advertised at: configured, or the listener's scheme and the
    /// request's Host header (`:authority` over HTTP/2); then a tenant's path prefix.
    func baseURL(for request: Request) -> String {
        if let configured = configuration.publicBaseURL { return configured + configuration.pathPrefix }
        let host = request.head.authority ?? "\(configuration.host):\(configuration.port)"
        return "\(scheme)://\(host)\(configuration.pathPrefix)"
    }

    /// Applies a queued transport fault for `target`: a delay (slept now, or after the hold of a shared
    /// world), or a 5xx thrown as a ``TransportFault``.
    func applyTransportFault(_ target: Fault.Target, clientID: String?) async throws {
        guard let fault = provider.takeTransportFault(target, clientID: clientID) else { return }
        switch fault.kind {
        case let .tokenDelay(seconds), let .keysDelay(seconds):
            if let deferred = DeferredDelay.current { deferred.add(.seconds(seconds)) } else { try await Task.sleep(for: .seconds(seconds)) }
        case let .tokenServerError(status), let .keysUnavailable(status):
            provider.noteRequest(clientID: clientID)
            throw TransportFault(status: status, reason: "fault applied: \(fault)")
        case .tokenError, .tokenResponseShape, .idToken:
            return
        }
    }
}

/// The routes of a group, as the endpoints' files register them.
typealias AppleRouteGroup = RouterGroup<BasicRequestContext>

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

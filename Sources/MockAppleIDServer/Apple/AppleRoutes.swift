import Hummingbird
import Logging
import MockAppleID
import Synchronization

/// Apple's endpoints over one provider. Each endpoint decodes the request into core values, asks the
/// provider, and encodes the answer as Apple would; one file per endpoint.
struct AppleRoutes: Sendable {
    let provider: AppleIDProvider
    let configuration: ServerConfiguration
    /// Discovery documents by base URL, built on first use (a handful at most).
    let discoveryCache = DiscoveryCache()

    func register(on router: Router<BasicRequestContext>) {
        registerAuthorize(on: router)
        registerToken(on: router)
        registerRevoke(on: router)
        registerMetadata(on: router)
    }

    /// The base URL endpoints are advertised at: configured, or from the request's Host header.
    func baseURL(for request: Request) -> String {
        if let configured = configuration.publicBaseURL { return configured }
        let host = request.head.authority ?? "\(configuration.host):\(configuration.port)"
        return "http://\(host)"
    }

    /// Records the request in the journal and the log; failures are logged with their real reason.
    func journal(_ request: Request, _ context: BasicRequestContext, endpoint: String, clientID: String?,
                 status: Int, error: String? = nil, reason: String) {
        provider.journal.record(time: provider.clock.now, method: request.method.rawValue, endpoint: endpoint,
                                clientID: clientID, status: status, error: error, reason: reason)
        let metadata: Logger.Metadata = ["endpoint": .string(endpoint), "client_id": .string(clientID ?? "-"), "status": .stringConvertible(status)]
        if let error {
            context.logger.notice("\(error): \(reason)", metadata: metadata)
        } else {
            context.logger.info("\(reason)", metadata: metadata)
        }
    }

    func journalFailure(_ request: Request, _ context: BasicRequestContext, endpoint: String, clientID: String?, _ error: AppleError) -> Response {
        journal(request, context, endpoint: endpoint, clientID: clientID, status: 400, error: error.code.rawValue, reason: error.reason)
        return AppleResponse.error(error)
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

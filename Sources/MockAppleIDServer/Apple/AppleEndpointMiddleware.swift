import HTTPTypes
import Hummingbird
import MockAppleID

/// Every request to one of Apple's endpoints passes here once, around its route: it is done through
/// ``AppleIDProvider/perform(_:_:)`` (saved before it answers, journaled once its answer is final), and here alone
/// its failure is answered in Apple's shape:
///
/// - Apple's error (``AppleError``): a bare `400 {"error":…}` with Apple's headers, or for an authorization
///   request Apple's own error page (JSON when the client asks for it), never a redirect;
/// - a transport fault (``TransportFault``) or a store that cannot be used: the status alone, with an empty
///   body and nothing of why (the journal, and for a store the log, say why).
struct AppleEndpointMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    let provider: AppleIDProvider
    let saving: SavedBeforeAnswering
    /// While a store is down every request fails alike: the log gets one line a second.
    let failures = ThrottledLog()

    func handle(_ request: Request, context: BasicRequestContext,
                next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
        let endpoint = AppleEndpoint.serving(request.uri.path) ?? .authorize
        let work = Work.appleRequest(endpoint, origin: request.origin) { error in
            if let fault = error as? TransportFault { return (fault.status, fault.reason) }
            return (((error as? any HTTPResponseError)?.status ?? .internalServerError).code, "\(error)")
        }
        let outcome: Result<Response, any Error>
        do throws(StateStoreError) {
            outcome = try await saving.run(request, as: work) { request in try await next(request, context) }
        } catch {
            failures.error(context.logger, "state not saved (\(request.method) \(request.uri.path.prefix(200))): \(error.message)")
            return Self.bare(.serviceUnavailable)
        }
        switch outcome {
        case let .success(response): return response
        case let .failure(error as AppleError):
            return endpoint == .authorize ? Self.page(error, request) : AppleResponse.json(error.body, status: .badRequest)
        case let .failure(fault as TransportFault): return Self.bare(HTTPResponse.Status(code: fault.status))
        case let .failure(error): throw error
        }
    }

    /// An authorization error on Apple's own page (HTTP 400), or as JSON when the client asks for it.
    private static func page(_ error: AppleError, _ request: Request) -> Response {
        if request.prefersJSON {
            return AppleResponse.json(.object([("error", .string(error.code.rawValue)), ("error_description", .string(error.pageMessage))]),
                                      status: .badRequest)
        }
        return AppleResponse.html(ErrorPage.render(error), status: .badRequest)
    }

    /// A server-side failure as Apple's endpoints answer it: the status alone, with an empty body.
    static func bare(_ status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: bareFields)
    }

    private static let bareFields: HTTPFields = [.server: "Apple", .contentLength: "0"]
}

/// A queued transport fault (`token-server-error`, `keys-unavailable`) answering a request with a bare
/// server error: the status, and for the journal why.
struct TransportFault: Error {
    let status: Int
    let reason: String
}

extension AppleEndpoint {
    /// The endpoint whose path `path` is, or lies under (the consent form posts to `/auth/authorize/consent`).
    static func serving(_ path: String) -> AppleEndpoint? {
        allCases.first { path == $0.rawValue || path.hasPrefix($0.rawValue + "/") }
    }
}

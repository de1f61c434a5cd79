import Foundation
import MockAppleID

/// A route the composition root adds to the admin API beside the server's own, through
/// ``ServerConfiguration/adminRoutes``: `serve` and the testing library add the audit's `POST /__admin/audit` so, and
/// the server links nothing it does not serve itself. The route is a `POST` under `/__admin` on the server's and each
/// tenant's admin API, behind the same guard. Its body is a JSON object, bounded and refused (400) when it names a
/// field not in ``fields``, as every admin body is; its answer is a stream of JSON lines (`application/x-ndjson`), an
/// empty line every ``AdminRoutes/streamHeartbeat`` keeping the connection alive.
public struct AdminStreamingRoute: Sendable {
    /// The path under `/__admin`, such as `audit`.
    public let path: String
    /// The fields the body may hold.
    public let fields: [String]
    /// Checks a request and returns its work, or refuses it before anything runs.
    public let start: @Sendable (AdminRouteRequest) async throws(AdminRouteRefusal) -> AdminLineStream

    public init(path: String, fields: [String],
                start: @escaping @Sendable (AdminRouteRequest) async throws(AdminRouteRefusal) -> AdminLineStream) {
        self.path = path
        self.fields = fields
        self.start = start
    }
}

/// What an ``AdminStreamingRoute`` is asked, and what of the server it may use.
public struct AdminRouteRequest: Sendable {
    /// The request's JSON object, holding none but the route's fields.
    public let body: JSONValue
    /// The world this admin API serves: the server's, or a tenant's.
    public let provider: AppleIDProvider
    /// The HTTP listener's base URL with the world's path prefix (`http://127.0.0.1:8080/t/job-a`), once listening.
    public let baseURL: String?
    /// How the server listens; its ``ServerConfiguration/https`` names the certificate authority its HTTPS listener uses.
    public let configuration: ServerConfiguration
}

/// A request an ``AdminStreamingRoute`` refuses before anything runs, answered as every admin error is:
/// `{"error": code, "message": message}` with the status.
public struct AdminRouteRefusal: Error, Sendable {
    /// The answer's status.
    public enum Status: Sendable { case badRequest, conflict }

    public let status: Status
    public let code: String
    public let message: String

    public init(status: Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// A 400 `bad_request`.
    public static func badRequest(_ message: String) -> Self { Self(status: .badRequest, code: "bad_request", message: message) }

    var adminError: AdminError {
        switch status {
        case .badRequest: AdminError.badRequest(message)
        case .conflict: AdminError(status: .conflict, code: code, message: message)
        }
    }
}

/// The work an ``AdminStreamingRoute`` started, which sends the answer's lines. It runs once the answer's head is
/// sent; an answer never sent drops it unrun (and whatever it holds).
public struct AdminLineStream: Sendable {
    /// The work: it sends each line (a JSON object) as it comes, and is cancelled when the client goes away or the
    /// server shuts down.
    public let work: @Sendable (_ send: @escaping @Sendable (JSONValue) -> Void) async -> Void
    /// The last line when the server shuts down while the work runs.
    public let shutdownLine: JSONValue

    public init(shutdownLine: JSONValue, work: @escaping @Sendable (_ send: @escaping @Sendable (JSONValue) -> Void) async -> Void) {
        self.work = work
        self.shutdownLine = shutdownLine
    }
}

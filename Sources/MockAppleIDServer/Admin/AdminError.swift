import Hummingbird

/// A refused admin request; it renders as `{"error":…,"message":…}`.
struct AdminError: Error, HTTPResponseError {
    let status: HTTPResponse.Status
    let code: String
    let message: String
    var headers: HTTPFields = [:]

    static func badRequest(_ message: String) -> AdminError { AdminError(status: .badRequest, code: "bad_request", message: message) }
    static func notFound(_ message: String) -> AdminError { AdminError(status: .notFound, code: "not_found", message: message) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = AdminResponse.json(.object([("error", .string(code)), ("message", .string(message))]), status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}

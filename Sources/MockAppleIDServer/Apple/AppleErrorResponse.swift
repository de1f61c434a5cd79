import HTTPTypes
import Hummingbird
import MockAppleID

/// Apple's token and revoke errors render themselves: a bare 400 `{"error":"…"}` (plus
/// `error_description` where Apple sends one) with Apple's headers.
extension AppleError: HTTPResponseError {
    public var status: HTTPResponse.Status { .badRequest }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        AppleResponse.json(body, status: .badRequest)
    }
}

/// An authorization error: shown on Apple's own page (HTTP 400; JSON when the client asks for it),
/// never redirected to the relying party.
struct AuthorizePageError: HTTPResponseError {
    let error: AppleError

    var status: HTTPResponse.Status { .badRequest }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        if request.prefersJSON {
            return AppleResponse.json(.object([("error", .string(error.code.rawValue)), ("error_description", .string(error.pageMessage))]),
                                      status: .badRequest)
        }
        return AppleResponse.html(ErrorPage.render(error), status: .badRequest)
    }
}

/// A server-side failure as Apple's endpoints answer it: the status alone, with an empty body and nothing
/// of why (a transport fault, or a store that cannot be used; the journal and the log say why).
struct BareStatusError: HTTPResponseError {
    let status: HTTPResponse.Status

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.server: "Apple"]
        headers[.contentLength] = "0"
        return Response(status: status, headers: headers)
    }
}

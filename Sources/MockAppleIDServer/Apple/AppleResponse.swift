import HTTPTypes
import Hummingbird
import MockAppleID

/// Responses shaped like Apple's: JSON with `application/json;charset=UTF-8`, `Cache-Control: no-store`,
/// `Pragma: no-cache` and `Server: Apple`. An `AppleError` becomes a bare 400 `{"error":"…"}` in
/// ``AppleEndpointMiddleware``, the one place Apple's endpoints answer a refusal.
enum AppleResponse {
    static func json(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: appleHeaders(contentType: "application/json;charset=UTF-8"),
                 body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        json(value.serialized, status: status)
    }

    /// `/auth/revoke`'s answer: 200 with an empty body.
    static func emptyOK() -> Response {
        var headers = appleHeaders(contentType: nil)
        headers[.contentLength] = "0"
        return Response(status: .ok, headers: headers)
    }

    static func html(_ page: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: appleHeaders(contentType: "text/html;charset=UTF-8"),
                 body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    static func redirect(to location: String) -> Response {
        var headers = appleHeaders(contentType: nil)
        headers[.location] = location
        return Response(status: .found, headers: headers)
    }

    private static let pragma = HTTPField.Name("Pragma")!

    private static func appleHeaders(contentType: String?) -> HTTPFields {
        var headers: HTTPFields = [.server: "Apple", .cacheControl: "no-store", pragma: "no-cache"]
        if let contentType { headers[.contentType] = contentType }
        return headers
    }
}

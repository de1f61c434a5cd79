import Foundation
import Hummingbird
import MockAppleID

/// JSON answers of the admin API. Errors are `{"error":"…","message":"…"}` with a fitting status.
enum AdminResponse {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        guard let data = try? encoder.encode(value) else {
            return error(.internalServerError, "encoding_failed", "the response could not be encoded")
        }
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: value.serialized)))
    }

    static func error(_ status: HTTPResponse.Status, _ code: String, _ message: String) -> Response {
        json(.object([("error", .string(code)), ("message", .string(message))]), status: status)
    }
}

/// A refused admin request.
struct AdminError: Error {
    let status: HTTPResponse.Status
    let code: String
    let message: String

    static func badRequest(_ message: String) -> AdminError { AdminError(status: .badRequest, code: "bad_request", message: message) }

    var response: Response { AdminResponse.error(status, code, message) }
}

extension Request {
    /// The body as a JSON object (an empty body reads as `{}`).
    func adminJSON(maxSize: Int) async throws(AdminError) -> JSONValue {
        let buffer: ByteBuffer
        do { buffer = try await body.collect(upTo: maxSize) } catch {
            throw AdminError.badRequest("body is larger than \(maxSize) bytes")
        }
        guard buffer.readableBytes > 0 else { return .object([]) }
        guard let value = JSONValue.parse(Data(buffer.readableBytesView)), case .object = value else {
            throw AdminError.badRequest("body must be a JSON object")
        }
        return value
    }
}

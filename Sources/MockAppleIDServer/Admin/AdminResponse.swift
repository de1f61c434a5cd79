import Foundation
import Hummingbird
import MockAppleID

/// JSON answers of the admin API. Errors are `{"error":"…","message":"…"}` with a fitting status.
enum AdminResponse {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }()

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws(AdminError) -> Response {
        guard let data = try? encoder.encode(value) else {
            throw AdminError(status: .internalServerError, code: "encoding_failed", message: "the response could not be encoded")
        }
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: value.serialized)))
    }
}

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

extension Request {
    /// The body as a JSON object (an empty body reads as `{}`). Only writes carry one, and
    /// ``AdminGuard`` has already required them to be declared `application/json`.
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

extension JSONValue {
    /// Decodes this JSON into `type` (through its serialised text).
    func decode<T: Decodable>(_ type: T.Type) throws(AdminError) -> T {
        do { return try JSONDecoder().decode(type, from: data) } catch {
            throw AdminError.badRequest("invalid \(type): \(Self.describe(error))")
        }
    }

    /// A member that must be text, if present.
    func text(_ key: String) throws(AdminError) -> String? {
        guard let value = self[key] else { return nil }
        guard let text = value.stringValue else { throw AdminError.badRequest("\(key) must be text") }
        return text
    }

    /// Refuses an object with members other than `allowed` (a misspelt field is an error, not ignored).
    func requireOnly(_ allowed: [String]) throws(AdminError) {
        guard case let .object(members) = self else { throw AdminError.badRequest("body must be a JSON object") }
        if let unknown = members.first(where: { !allowed.contains($0.0) }) {
            throw AdminError.badRequest("unknown field \"\(unknown.0)\"; expected: \(allowed.joined(separator: ", "))")
        }
    }

    /// A member that must be true or false, if present.
    func flag(_ key: String) throws(AdminError) -> Bool? {
        guard let value = self[key] else { return nil }
        guard let flag = value.boolValue else { throw AdminError.badRequest("\(key) must be true or false") }
        return flag
    }

    /// A member that must be a time: ISO 8601 text or epoch seconds, within the clock's range.
    func instant(_ key: String) throws(AdminError) -> Date? {
        guard let value = self[key] else { return nil }
        let date: Date
        if let seconds = value.doubleValue {
            date = Date(timeIntervalSince1970: seconds)
        } else if let text = value.stringValue, let parsed = ISO8601DateFormatter().date(from: text) {
            date = parsed
        } else {
            throw AdminError.badRequest("\(key) must be epoch seconds or an ISO 8601 time such as 2026-01-01T09:00:00Z")
        }
        do { return try TimeRange.check(date, key) } catch { throw AdminError.badRequest(error.description) }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case let DecodingError.keyNotFound(key, _): return "missing \(key.stringValue)"
        case let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context),
             let DecodingError.dataCorrupted(context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        default: return "\(error)"
        }
    }
}

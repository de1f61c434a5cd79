import Foundation
import MockAppleID

/// The admin API's readers of a JSON body's members: each refuses a member of the wrong kind with a 400 naming it.
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

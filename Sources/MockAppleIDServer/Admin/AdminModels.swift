import Foundation
import MockAppleID

/// `GET /__admin/clock`.
struct ClockView: Encodable {
    let now: Date
    let epochSeconds: Double
    let frozen: Bool

    init(_ clock: MockClock) {
        now = clock.now
        epochSeconds = now.timeIntervalSince1970
        frozen = clock.isFrozen
    }
}

/// `GET /__admin/auto-approve`.
struct AutoApproveView: Encodable {
    let autoApprove: AutoApprove?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(autoApprove, forKey: .autoApprove)
    }

    private enum CodingKeys: String, CodingKey { case autoApprove }
}

/// `GET /__admin/journal`.
struct JournalView: Encodable {
    let entries: [JournalEntry]
}

/// `GET /__admin/health`.
struct HealthView: Encodable {
    let status: String
    let scenario: String
}

extension JSONValue {
    /// Decodes this JSON into `type` (through its serialised text).
    func decode<T: Decodable>(_ type: T.Type) throws(AdminError) -> T {
        do { return try JSONDecoder().decode(type, from: data) } catch {
            throw AdminError.badRequest("invalid \(type): \(Self.describe(error))")
        }
    }

    /// This object with `patch`'s members replacing or adding to its own.
    func merged(with patch: JSONValue) -> JSONValue {
        guard case var .object(members) = self, case let .object(changes) = patch else { return patch }
        for (key, value) in changes {
            if let index = members.firstIndex(where: { $0.0 == key }) { members[index].1 = value } else { members.append((key, value)) }
        }
        return .object(members)
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

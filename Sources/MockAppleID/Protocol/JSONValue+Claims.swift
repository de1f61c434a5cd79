import Foundation

/// Changing a token's claims, for the faults that break them and the audit's forged tokens.
extension JSONValue {
    /// These claims with `exp` an hour ago and `iat` a lifetime before it.
    public var expiredAnHourAgo: JSONValue {
        let issuedAt = self["iat"]?.int64Value ?? 0
        let expires = self["exp"]?.int64Value ?? 0
        let newExpiry = issuedAt - 3600
        return setting("exp", .int(newExpiry)).setting("iat", .int(newExpiry - (expires - issuedAt)))
    }

    /// This object with `key` set to `value` (nil: removed).
    public func setting(_ key: String, _ value: JSONValue?) -> JSONValue {
        guard case var .object(members) = self else { return self }
        guard let value else {
            members.removeAll { $0.0 == key }
            return .object(members)
        }
        return merged(with: .object([(key, value)]))
    }
}

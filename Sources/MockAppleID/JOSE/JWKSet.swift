/// The JSON Web Key Set served at `/auth/keys`.
public struct JWKSet: Sendable {
    /// The published keys, in the order they are served.
    public let keys: [SigningKey]

    /// A set of published keys.
    public init(keys: [SigningKey]) { self.keys = keys }

    /// `{"keys":[…]}` with each key's fields in Apple's order (kty, kid, use, alg, n, e).
    public var json: JSONValue { .object([("keys", .array(keys.map(\.publicJWK)))]) }

    /// The key with the given `kid`.
    public func key(withID kid: String) -> SigningKey? { keys.first { $0.kid == kid } }
}

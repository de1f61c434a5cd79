import Foundation

/// Compact JWS: assembling ours byte for byte as Apple does, and taking apart what clients send.
public enum JWS {
    /// Signs `payload` with `key`; the header is exactly `{"kid":…,"alg":…}` (no `typ`), as Apple's.
    /// `headerKID` replaces the key's own id in the header; `corruptSignature` flips a bit of the
    /// signature (both for fault injection).
    public static func sign(payload: JSONValue, with key: SigningKey, headerKID: String? = nil, corruptSignature: Bool = false) throws -> String {
        let header = headerKID.map { headerSegment(kid: $0, algorithm: key.algorithm) } ?? key.headerSegment
        let signingInput = header + "." + Base64URL.encode(Array(payload.serialized.utf8))
        var signature = try key.sign(Data(signingInput.utf8))
        if corruptSignature, !signature.isEmpty { signature[signature.startIndex + signature.count / 2] ^= 0x01 }
        return signingInput + "." + Base64URL.encode(signature)
    }
}

extension JWS {
    /// The base64url of the header `{"kid":…,"alg":…}`.
    static func headerSegment(kid: String, algorithm: JWSAlgorithm) -> String {
        Base64URL.encode(Array(JSONValue.object([("kid", .string(kid)), ("alg", .string(algorithm.rawValue))]).serialized.utf8))
    }
}

/// A compact JWS split into its parts; nothing is verified yet.
public struct CompactJWS: Sendable {
    /// The decoded protected header.
    public let header: JSONValue
    /// The decoded payload (claims).
    public let payload: JSONValue
    /// `base64url(header) "." base64url(payload)`, the bytes the signature covers.
    public let signingInput: Data
    /// The decoded signature bytes.
    public let signature: Data

    /// Why text is not a compact JWS with JSON header and payload.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The reasons, switched on inside the module; not public, so that one added breaks no caller.
        enum Base: Sendable, Equatable {
            case tooLong(Int)
            case notThreeParts(Int)
            case notBase64URL(part: String)
            case notJSONObject(part: String)
        }

        /// Which of them.
        let base: Base

        public static func tooLong(_ length: Int) -> Self { Self(base: .tooLong(length)) }
        public static func notThreeParts(_ count: Int) -> Self { Self(base: .notThreeParts(count)) }
        public static func notBase64URL(part: String) -> Self { Self(base: .notBase64URL(part: part)) }
        public static func notJSONObject(part: String) -> Self { Self(base: .notJSONObject(part: part)) }

        public var description: String {
            switch base {
            case let .tooLong(length): return "not a compact JWS: \(length) bytes, more than the \(CompactJWS.maxLength) accepted"
            case let .notThreeParts(count): return "not a compact JWS: \(count) dot-separated part(s) instead of 3"
            case let .notBase64URL(part): return "the JWS \(part) is not base64url"
            case let .notJSONObject(part): return "the JWS \(part) is not a JSON object"
            }
        }
    }

    /// The longest compact JWS read (Apple's tokens and client secrets are well under 2 KB); anything
    /// longer is refused before it is split or decoded.
    public static let maxLength = 8 * 1024

    /// Splits and decodes `compact`; throws ``ParseError`` for anything malformed or over ``maxLength``.
    public init(compact: String) throws(ParseError) {
        guard compact.utf8.count <= Self.maxLength else { throw .tooLong(compact.utf8.count) }
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .notThreeParts(parts.count) }
        guard let headerBytes = Base64URL.decode(parts[0]) else { throw .notBase64URL(part: "header") }
        guard let payloadBytes = Base64URL.decode(parts[1]) else { throw .notBase64URL(part: "payload") }
        guard let signature = Base64URL.decode(parts[2]) else { throw .notBase64URL(part: "signature") }
        guard let header = JSONValue.parse(headerBytes), case .object = header else {
            throw .notJSONObject(part: "header")
        }
        guard let payload = JSONValue.parse(payloadBytes), case .object = payload else {
            throw .notJSONObject(part: "payload")
        }
        self.header = header
        self.payload = payload
        self.signingInput = Data((parts[0] + "." + parts[1]).utf8)
        self.signature = signature
    }
}

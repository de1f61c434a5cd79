import Crypto
import Foundation

/// Apple's `client_secret` checks (docs/apple-reference.md §2.2), in this order (Apple's answer is the same bare `invalid_client` whichever fails):
/// JWT shape, `alg`, `kid`, raw r‖s signature, `iss`, `sub`, `aud`, `iat`, `exp`.
public struct ClientSecretVerifier: Sendable {
    public let settings: ProviderSettings
    let signedSecrets = SignedSecretCache()

    public init(settings: ProviderSettings) { self.settings = settings }

    /// Checks `secret` for `client` of `team` at `now`; the failure names the first check that failed.
    public func verify(_ secret: String, client: Client, team: Team, now: Date) -> Result<Void, ClientSecretFailure> {
        let claims: JSONValue
        switch signedClaims(secret, team: team) {
        case let .success(signed): claims = signed
        case let .failure(failure): return .failure(failure)
        }
        let iss = claims["iss"]?.stringValue
        guard iss.sameBytes(as: team.id) else { return .failure(.wrongIssuer(iss, expected: team.id)) }
        let sub = claims["sub"]?.stringValue
        guard sub.sameBytes(as: client.id) else { return .failure(.wrongSubject(sub, expected: client.id)) }
        guard audience(claims["aud"]).sameBytes(as: settings.clientSecretAudience) else {
            return .failure(.wrongAudience(claims["aud"]?.serialized, expected: settings.clientSecretAudience))
        }
        let nowSeconds = now.timeIntervalSince1970
        let iat: TimeInterval
        switch numericDate(claims["iat"], "iat", missing: .missingIssuedAt) {
        case let .success(seconds): iat = seconds
        case let .failure(failure): return .failure(failure)
        }
        let ahead = iat - nowSeconds
        guard ahead <= settings.clientSecretIssuedAtTolerance else {
            return .failure(.issuedInFuture(seconds: TimeRange.wholeSecondsInt(ahead)))
        }
        let exp: TimeInterval
        switch numericDate(claims["exp"], "exp", missing: .missingExpiry) {
        case let .success(seconds): exp = seconds
        case let .failure(failure): return .failure(failure)
        }
        let remaining = exp - nowSeconds
        guard remaining > 0 else { return .failure(.expired(secondsAgo: TimeRange.wholeSecondsInt(-remaining))) }
        guard remaining <= settings.clientSecretMaxLifetime else {
            return .failure(.lifetimeTooLong(seconds: TimeRange.wholeSecondsInt(remaining),
                                             limit: TimeRange.wholeSecondsInt(settings.clientSecretMaxLifetime)))
        }
        return .success(())
    }

    /// The claims of `secret` once its header, key and signature pass. A secret whose signature was
    /// checked before against the same key skips parsing and the P-256 verification (relying parties
    /// send one secret for months); the key's presence and revocation are looked up every time.
    private func signedClaims(_ secret: String, team: Team) -> Result<JSONValue, ClientSecretFailure> {
        if let known = signedSecrets.entry(for: secret), let key = team.developerKeys[exactly: known.kid],
           key.rawPublicKey == known.publicKey {
            return key.revoked ? .failure(.revokedKey(known.kid)) : .success(known.claims)
        }
        let jws: CompactJWS
        do { jws = try CompactJWS(compact: secret) } catch { return .failure(.notAJWT(error.description)) }
        let alg = jws.header["alg"]?.stringValue
        guard alg == JWSAlgorithm.es256.rawValue else { return .failure(.algorithmNotES256(alg)) }
        guard let kid = jws.header["kid"]?.stringValue else { return .failure(.missingKeyID) }
        guard let key = team.developerKeys[exactly: kid] else { return .failure(.unknownKeyID(kid, team: team.id)) }
        guard !key.revoked else { return .failure(.revokedKey(kid)) }
        guard jws.signature.count == 64 else {
            if (try? P256.Signing.ECDSASignature(derRepresentation: jws.signature)) != nil {
                return .failure(.derSignature)
            }
            return .failure(.signatureLength(jws.signature.count))
        }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature),
              key.publicKey.isValidSignature(signature, for: jws.signingInput)
        else { return .failure(.badSignature(kid)) }
        signedSecrets.remember(secret, SignedSecretCache.Entry(kid: kid, publicKey: key.rawPublicKey, claims: jws.payload))
        return .success(jws.payload)
    }

    /// A NumericDate claim (RFC 7519: seconds, which may have a fraction) as seconds since 1970. A fraction
    /// is refused when `errors.clientSecretFractionalTimes` says so; anything but a number is `missing`.
    private func numericDate(_ value: JSONValue?, _ claim: String, missing: ClientSecretFailure) -> Result<TimeInterval, ClientSecretFailure> {
        if let whole = value?.int64Value { return .success(TimeInterval(whole)) }
        guard let seconds = value?.doubleValue, seconds.isFinite, abs(seconds) < 9e15 else { return .failure(missing) }
        guard settings.errors.clientSecretFractionalTimes == .accept else { return .failure(.fractionalTime(claim: claim, seconds)) }
        return .success(seconds)
    }

    /// `aud` as a single string (a one-element array counts, as some libraries send that).
    private func audience(_ value: JSONValue?) -> String? {
        switch value {
        case let .string(text): return text
        case let .array(values) where values.count == 1: return values[0].stringValue
        default: return nil
        }
    }
}

/// Why a client secret was refused. Every reason answers `invalid_client`; the text goes to the journal.
public struct ClientSecretFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reasons, switched on inside the module; not public, so that one added breaks no caller.
    enum Base: Sendable, Equatable {
        case notAJWT(String)
        case algorithmNotES256(String?)
        case missingKeyID
        case unknownKeyID(String, team: String)
        case revokedKey(String)
        case derSignature
        case signatureLength(Int)
        case badSignature(String)
        case wrongIssuer(String?, expected: String)
        case wrongSubject(String?, expected: String)
        case wrongAudience(String?, expected: String)
        case missingIssuedAt
        case fractionalTime(claim: String, Double)
        case issuedInFuture(seconds: Int)
        case missingExpiry
        case expired(secondsAgo: Int)
        case lifetimeTooLong(seconds: Int, limit: Int)
    }

    /// Which of them.
    let base: Base

    public static func notAJWT(_ detail: String) -> Self { Self(base: .notAJWT(detail)) }
    public static func algorithmNotES256(_ alg: String?) -> Self { Self(base: .algorithmNotES256(alg)) }
    public static var missingKeyID: Self { Self(base: .missingKeyID) }
    public static func unknownKeyID(_ kid: String, team: String) -> Self { Self(base: .unknownKeyID(kid, team: team)) }
    public static func revokedKey(_ kid: String) -> Self { Self(base: .revokedKey(kid)) }
    public static var derSignature: Self { Self(base: .derSignature) }
    public static func signatureLength(_ count: Int) -> Self { Self(base: .signatureLength(count)) }
    public static func badSignature(_ kid: String) -> Self { Self(base: .badSignature(kid)) }
    public static func wrongIssuer(_ iss: String?, expected: String) -> Self { Self(base: .wrongIssuer(iss, expected: expected)) }
    public static func wrongSubject(_ sub: String?, expected: String) -> Self { Self(base: .wrongSubject(sub, expected: expected)) }
    public static func wrongAudience(_ aud: String?, expected: String) -> Self { Self(base: .wrongAudience(aud, expected: expected)) }
    public static var missingIssuedAt: Self { Self(base: .missingIssuedAt) }
    public static func fractionalTime(claim: String, _ seconds: Double) -> Self { Self(base: .fractionalTime(claim: claim, seconds)) }
    public static func issuedInFuture(seconds: Int) -> Self { Self(base: .issuedInFuture(seconds: seconds)) }
    public static var missingExpiry: Self { Self(base: .missingExpiry) }
    public static func expired(secondsAgo: Int) -> Self { Self(base: .expired(secondsAgo: secondsAgo)) }
    public static func lifetimeTooLong(seconds: Int, limit: Int) -> Self { Self(base: .lifetimeTooLong(seconds: seconds, limit: limit)) }

    public var description: String {
        switch base {
        case let .notAJWT(detail):
            return "client_secret is not a JWT (\(detail)); it must be an ES256 JWT signed with the team's .p8 key, not the key itself"
        case let .algorithmNotES256(alg):
            return "client_secret header alg is \(alg.map { "\"\($0)\"" } ?? "missing"); Apple accepts only ES256"
        case .missingKeyID:
            return "client_secret header has no kid; it must name the Sign in with Apple key id"
        case let .unknownKeyID(kid, team):
            return "client_secret kid \"\(kid)\" is not a key of team \(team)"
        case let .revokedKey(kid):
            return "client_secret is signed with key \(kid), which has been revoked"
        case .derSignature:
            return "client_secret signature is ASN.1 DER; JWS ES256 needs the raw 64-byte r‖s form"
        case let .signatureLength(count):
            return "client_secret signature is \(count) bytes; ES256 needs 64 (raw r‖s)"
        case let .badSignature(kid):
            return "client_secret signature does not verify against key \(kid)"
        case let .wrongIssuer(iss, expected):
            return "client_secret iss is \(iss.map { "\"\($0)\"" } ?? "missing"); it must be the team id \(expected)"
        case let .wrongSubject(sub, expected):
            return "client_secret sub is \(sub.map { "\"\($0)\"" } ?? "missing"); it must equal client_id \(expected)"
        case let .wrongAudience(aud, expected):
            return "client_secret aud is \(aud ?? "missing"); it must be \"\(expected)\""
        case .missingIssuedAt:
            return "client_secret has no numeric iat"
        case let .fractionalTime(claim, seconds):
            return "client_secret \(claim) is \(seconds), not a whole number of seconds (errors.clientSecretFractionalTimes: refuse)"
        case let .issuedInFuture(seconds):
            return "client_secret iat is \(seconds) s in the future (the signer's clock is ahead)"
        case .missingExpiry:
            return "client_secret has no numeric exp"
        case let .expired(secondsAgo):
            return "client_secret expired \(secondsAgo) s ago"
        case let .lifetimeTooLong(seconds, limit):
            return "client_secret exp is \(seconds) s ahead; Apple allows at most \(limit) s (about 6 months)"
        }
    }
}

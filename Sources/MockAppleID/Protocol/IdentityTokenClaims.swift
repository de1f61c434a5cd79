import Foundation

/// Builds identity-token claims in Apple's order (docs/apple-reference.md §5.2):
/// `iss, aud, exp, iat, sub, [nonce], [c_hash|at_hash], [email, email_verified, is_private_email],
/// [auth_time], [nonce_supported], [real_user_status], [org_id], [transfer_sub]`.
public struct IdentityTokenClaims: Sendable {
    /// Which grant issues the token; it decides the hash claim and the nonce/auth_time rules (§5.3).
    public enum Grant: Sendable, Equatable {
        /// Issued with a code at `/auth/authorize`: `c_hash`, `nonce`, `auth_time`, `nonce_supported`.
        case authorization(code: String, nonce: String?, authTime: Date)
        /// Issued by the code exchange: `at_hash`, `nonce`, `auth_time`, `nonce_supported`.
        case codeExchange(accessToken: String, nonce: String?, authTime: Date)
        /// Issued by a refresh: `at_hash` only.
        case refresh(accessToken: String)
    }

    public let issuer: String
    public let options: ClaimOptions

    public init(issuer: String, options: ClaimOptions) {
        self.issuer = issuer
        self.options = options
    }

    /// The claims for `identity` issued at `now` by `grant`; `fault` breaks them on purpose (expired, not yet valid,
    /// wrong `iss`, `aud`, `nonce` or `sub`, `sub` as an array, no `nonce`, `sub`, `iss`, `aud`, `exp` or `iat`, a week-old `iat`,
    /// an `exp` of 1e20 or as a string (``reshaping(_:as:)``); `alg: none` drops `at_hash`; the other signature faults leave them
    /// alone), or gives Apple's string booleans.
    public func claims(for identity: SignedInIdentity, grant: Grant, now: Date, fault: Fault.IdentityTokenFault? = nil) -> JSONValue {
        let lifetime = TimeRange.wholeSeconds(options.idTokenLifetime)
        var issuedAt = seconds(now)
        switch fault {
        case .expired: issuedAt = issuedAt &- lifetime &- 3600
        case .notYetValid: issuedAt = issuedAt &+ 3600
        default: break
        }
        var claims: [(String, JSONValue)] = [
            ("iss", .string(fault == .wrongIssuer ? Self.wrongIssuer : issuer)),
            ("aud", audience(identity.clientID, fault: fault)),
        ]
        // A token for the client and another audience names the client as its authorized party, as OpenID Connect has a
        // token with several audiences do: only a check of every audience refuses it.
        if fault == .audienceArray { claims.append(("azp", .string(identity.clientID))) }
        claims += [
            ("exp", .int(issuedAt &+ lifetime)),
            ("iat", .int(issuedAt)),
            ("sub", subject(identity.subject, fault: fault)),
        ]
        if let omitted = fault?.omittedClaim { claims.removeAll { $0.0 == omitted } }
        let keepNonce = fault != .noNonce
        let broken: (String) -> String = { fault == .wrongNonce ? Self.wrongNoncePrefix + $0 : $0 }
        switch grant {
        case let .authorization(code, nonce, _):
            if let nonce, keepNonce { claims.append(("nonce", .string(broken(nonce)))) }
            claims.append(("c_hash", .string(TokenHash.of(code))))
        case let .codeExchange(accessToken, nonce, _):
            if let nonce, keepNonce { claims.append(("nonce", .string(broken(nonce)))) }
            // An unsigned token without `at_hash`: only a check of the algorithm refuses it.
            if fault != .algNone { claims.append(("at_hash", .string(TokenHash.of(accessToken)))) }
        case let .refresh(accessToken):
            if fault != .algNone { claims.append(("at_hash", .string(TokenHash.of(accessToken)))) }
        }
        if let email = identity.email {
            claims.append(("email", .string(email.address)))
            claims.append(("email_verified", boolean(email.verified, isPrivateEmailClaim: false, fault: fault)))
            if email.isPrivate { claims.append(("is_private_email", boolean(true, isPrivateEmailClaim: true, fault: fault))) }
        }
        switch grant {
        case let .authorization(_, _, authTime), let .codeExchange(_, _, authTime):
            claims.append(("auth_time", .int(seconds(authTime))))
            claims.append(("nonce_supported", .bool(true)))
        case .refresh:
            break
        }
        if let status = identity.realUserStatus { claims.append(("real_user_status", .int(Int64(status.rawValue)))) }
        if let orgID = identity.orgID { claims.append(("org_id", .string(orgID))) }
        if let transfer = identity.transferSubject { claims.append(("transfer_sub", .string(transfer))) }
        return fault.map { Self.reshaping(.object(claims), as: $0) } ?? .object(claims)
    }

    /// How long before now ``Fault/IdentityTokenFault/issuedLongAgo`` puts `iat`: a week.
    public static let longAgo: Int64 = 7 * 86_400
    /// The `exp` of ``Fault/IdentityTokenFault/expiryFarFuture``.
    public static let farFutureExpiry = 1e20

    /// `claims`, issued now, with `iat` or `exp` reshaped as `fault` says (a week-old `iat`, an `exp` of 1e20, or an
    /// expired `exp` as a string); the claims of any other fault unchanged.
    public static func reshaping(_ claims: JSONValue, as fault: Fault.IdentityTokenFault) -> JSONValue {
        switch fault {
        case .issuedLongAgo: return claims.setting("iat", claims["iat"]?.int64Value.map { .int($0 - longAgo) })
        case .expiryFarFuture: return claims.setting("exp", .double(farFutureExpiry))
        case .expiryAsString:
            let expired = claims.expiredAnHourAgo
            return expired.setting("exp", expired["exp"]?.int64Value.map { .string(String($0)) })
        default: return claims
        }
    }

    /// The `iss` of a token broken with ``Fault/IdentityTokenFault/wrongIssuer``.
    public static let wrongIssuer = "https://appleid.apple.com.mock-appleid.invalid"
    /// Put before the `nonce` by ``Fault/IdentityTokenFault/wrongNonce``.
    public static let wrongNoncePrefix = "not-"
    /// The other audience ``Fault/IdentityTokenFault/audienceArray`` adds.
    public static let otherAudience = "mock-appleid.other-audience"
    /// The `sub` of another user than `subject`'s, Apple-shaped: what ``Fault/IdentityTokenFault/otherSubject`` puts in a token.
    public static func otherSubject(than subject: String) -> String {
        AppleIdentifiers.subject(teamID: "mock-appleid.other-subject", personaID: subject)
    }

    private func audience(_ clientID: String, fault: Fault.IdentityTokenFault?) -> JSONValue {
        switch fault {
        case .wrongAudience: return .string(clientID + Self.wrongAudienceSuffix)
        case .audienceArray: return .array([.string(clientID), .string(Self.otherAudience)])
        default: return .string(clientID)
        }
    }

    private func subject(_ subject: String, fault: Fault.IdentityTokenFault?) -> JSONValue {
        switch fault {
        case .otherSubject: return .string(Self.otherSubject(than: subject))
        case .subjectArray: return .array([.string(subject), .string(Self.otherSubject(than: subject))])
        default: return .string(subject)
        }
    }

    /// Appended to `aud` by ``Fault/IdentityTokenFault/wrongAudience``.
    public static let wrongAudienceSuffix = ".not-this-client"

    private func seconds(_ date: Date) -> Int64 {
        TimeRange.wholeSeconds(date.timeIntervalSince1970 + options.emittedTimeSkew)
    }

    private func boolean(_ value: Bool, isPrivateEmailClaim: Bool, fault: Fault.IdentityTokenFault?) -> JSONValue {
        if fault == .stringBooleans { return .string(value ? "true" : "false") }
        switch options.booleans {
        case .boolean: return .bool(value)
        case .string: return .string(value ? "true" : "false")
        case .mixed: return isPrivateEmailClaim ? .string(value ? "true" : "false") : .bool(value)
        }
    }
}

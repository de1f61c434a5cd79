/// Why a fault description was refused.
public struct FaultSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension Fault {
    /// The spellings of ``Fault/Kind`` in scenario files and the admin API.
    public static let kindNames = KindName.allCases.map(\.rawValue) + IdentityTokenFault.allCases.map(\.specName)

    /// The spellings of every kind but ``Fault/Kind/idToken(_:)``, whose spellings are ``IdentityTokenFault/specName``.
    private enum KindName: String, CaseIterable {
        case tokenServerError = "token-server-error", tokenDelay = "token-delay", tokenError = "token-error"
        case tokenResponseShape = "token-response-shape"
        case keysUnavailable = "keys-unavailable", keysDelay = "keys-delay"
    }

    /// The members a fault description may have.
    public static let specFields = ["fault", "status", "seconds", "error", "clientID", "count", "always"]

    /// Reads `{"fault": name, "status"?, "seconds"?, "error"?, "clientID"?, "count"?, "always"?}`:
    /// `count` (default 1) matching requests, or every one while `always` is true.
    public init(spec: JSONValue) throws(FaultSpecError) {
        guard case let .object(members) = spec else { throw FaultSpecError("a fault must be an object with a \"fault\" name") }
        if let unknown = members.first(where: { !Self.specFields.contains($0.0) }) {
            throw FaultSpecError("unknown fault field \"\(unknown.0)\"; expected: \(Self.specFields.joined(separator: ", "))")
        }
        guard let name = spec["fault"]?.stringValue else {
            throw FaultSpecError("\"fault\" must name the fault: \(Self.kindNames.joined(separator: ", "))")
        }
        let kind = try Self.kind(named: name, spec)
        var clientID: String?
        if let value = spec["clientID"] {
            guard let text = value.stringValue, !text.isEmpty, text.utf8.count <= 256 else {
                throw FaultSpecError("clientID must be a client id (1 to 256 characters)")
            }
            clientID = text
        }
        let always = try Self.flag(spec["always"], "always")
        var count: Int? = 1
        if let value = spec["count"] {
            guard !always else { throw FaultSpecError("give count or always, not both") }
            guard let number = value.int64Value, number >= 1, number <= Int64(Self.largestCount) else {
                throw FaultSpecError("count must be a whole number from 1 to \(Self.largestCount)")
            }
            count = Int(number)
        }
        if always { count = nil }
        self.init(kind, clientID: clientID, count: count)
    }

    private static func kind(named name: String, _ spec: JSONValue) throws(FaultSpecError) -> Kind {
        switch KindName(rawValue: name) {
        case .tokenServerError: return .tokenServerError(status: try status(spec))
        case .tokenDelay: return .tokenDelay(seconds: try seconds(spec))
        case .tokenError:
            let text = spec["error"]?.stringValue
            guard let code = text.flatMap(AppleErrorCode.init(rawValue:)), code == .invalidGrant || code == .invalidClient else {
                throw FaultSpecError("token-error needs \"error\": \"invalid_grant\" or \"invalid_client\"")
            }
            return .tokenError(code)
        case .tokenResponseShape: return .tokenResponseShape
        case .keysUnavailable: return .keysUnavailable(status: try status(spec))
        case .keysDelay: return .keysDelay(seconds: try seconds(spec))
        case nil:
            guard let fault = IdentityTokenFault.allCases.first(where: { $0.specName == name }) else {
                throw FaultSpecError("unknown fault \"\(name)\"; expected one of: \(kindNames.joined(separator: ", "))")
            }
            return .idToken(fault)
        }
    }

    private static func status(_ spec: JSONValue) throws(FaultSpecError) -> Int {
        guard let value = spec["status"] else { return 503 }
        guard let number = value.int64Value, (500...599).contains(number) else {
            throw FaultSpecError("status must be a whole number from 500 to 599")
        }
        return Int(number)
    }

    private static func seconds(_ spec: JSONValue) throws(FaultSpecError) -> Double {
        guard let value = spec["seconds"]?.doubleValue, value.isFinite, value > 0, value <= longestDelay else {
            throw FaultSpecError("seconds must be a number above 0 and at most \(Int(longestDelay))")
        }
        return value
    }

    private static func flag(_ value: JSONValue?, _ name: String) throws(FaultSpecError) -> Bool {
        guard let value else { return false }
        guard let flag = value.boolValue else { throw FaultSpecError("\(name) must be true or false") }
        return flag
    }
}

extension Fault.IdentityTokenFault {
    /// The claim the fault leaves out of the token, if it is one that does.
    public var omittedClaim: String? {
        switch self {
        case .noSubject: return "sub"
        case .noIssuer: return "iss"
        case .noAudience: return "aud"
        case .noExpiry: return "exp"
        case .noIssuedAt: return "iat"
        case .expired, .notYetValid, .wrongIssuer, .wrongAudience, .unknownKid, .badSignature, .noNonce, .wrongNonce, .audienceArray,
             .otherSubject, .subjectArray, .foreignKey, .algNone, .hs256PublicKey, .stringBooleans, .issuedLongAgo, .expiryFarFuture,
             .expiryAsString, .unknownCriticalHeader, .otherAlgorithm:
            return nil
        }
    }

    /// `id-token-expired`, `id-token-not-yet-valid`, …
    public var specName: String {
        switch self {
        case .expired: return "id-token-expired"
        case .notYetValid: return "id-token-not-yet-valid"
        case .wrongIssuer: return "id-token-wrong-issuer"
        case .wrongAudience: return "id-token-wrong-audience"
        case .unknownKid: return "id-token-unknown-kid"
        case .badSignature: return "id-token-bad-signature"
        case .noNonce: return "id-token-no-nonce"
        case .wrongNonce: return "id-token-wrong-nonce"
        case .audienceArray: return "id-token-audience-array"
        case .otherSubject: return "id-token-other-subject"
        case .subjectArray: return "id-token-subject-array"
        case .noSubject: return "id-token-no-subject"
        case .noIssuer: return "id-token-no-issuer"
        case .noAudience: return "id-token-no-audience"
        case .noExpiry: return "id-token-no-expiry"
        case .noIssuedAt: return "id-token-no-issued-at"
        case .foreignKey: return "id-token-foreign-key"
        case .algNone: return "id-token-alg-none"
        case .hs256PublicKey: return "id-token-hs256-public-key"
        case .stringBooleans: return "id-token-string-booleans"
        case .issuedLongAgo: return "id-token-issued-long-ago"
        case .expiryFarFuture: return "id-token-expiry-far-future"
        case .expiryAsString: return "id-token-expiry-as-string"
        case .unknownCriticalHeader: return "id-token-unknown-critical-header"
        case .otherAlgorithm: return "id-token-other-algorithm"
        }
    }
}
